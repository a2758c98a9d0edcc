"""Hooks through the real `paicli run`: a workspace's hooks wait for
`--trust-hooks` (nothing remembered), then block a command with their
reason; every run is in the ledger."""

from __future__ import annotations

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import events, ledger_lines, run_paicli
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(60)]


def test_workspace_hooks_need_trust_hooks_then_block_with_their_reason(workspace, paicli_home, tmp_path):
    (workspace / ".paicli").mkdir()
    (workspace / ".paicli" / "config.toml").write_text(
        '[[hooks.PreToolUse]]\nmatcher = "execute_command"\n'
        'command = "echo \'commands are reviewed by CI only\' >&2; exit 2"\n')
    homes = []
    for flag in ([], ["--trust-hooks"]):
        home = tmp_path / f"home{len(homes)}"
        homes.append(home)
        script = Script({"react": [Reply(tool_calls=[("execute_command", {"command": "touch ran"})]),
                                   Reply(content="ok")]})
        with LoopbackServer(script) as server:
            proc = run_paicli(["run", "--base-url", server.base_url, "--model", "m", "--yes", *flag, "make it"],
                              home=home, cwd=workspace)
        assert proc.returncode == 0, proc.stderr
        if not flag:
            assert "workspace hooks are not run until you trust them" in proc.stderr
            assert (workspace / "ran").exists()
            assert events(ledger_lines(home), "hook_ran") == []
            (workspace / "ran").unlink()
        else:
            assert not (workspace / "ran").exists()
            tool_messages = [m["content"] for m in script.requests[-1].messages if m.get("role") == "tool"]
            assert "blocked by hook: commands are reviewed by CI only" in tool_messages[-1]
            lines = ledger_lines(home)
            (trusted,) = events(lines, "hooks_trusted")
            assert trusted["payload"]["remembered"] is False
            (ran,) = events(lines, "hook_ran")
            assert ran["payload"]["outcome"] == "blocked" and ran["payload"]["source"] == "workspace"
            assert "execute_command: blocked by hook: commands are reviewed by CI only" in proc.stdout
            assert not list(home.rglob("hooks-trust.toml"))
