"""A secret typed into a goal is not kept in clear by the checkpoints, and
`paicli undo --list` prints only the redacted text (real session, real
loopback server, real `paicli undo` subprocess)."""

from __future__ import annotations

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.session.live import Session
from tests.support.cli import run_paicli
from tests.support.server import LoopbackServer

pytestmark = pytest.mark.timeout(60)

KEY = "session-key-0123456789abcdef"
SHAPED = "sk-proj-abcdefghijklmnopqrstuvwxyz012345"


def test_a_goal_s_secrets_are_redacted_before_checkpoints_store_it(tmp_path, paicli_home, monkeypatch):
    monkeypatch.setenv("MY_LLM_KEY", KEY)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    script = Script({"react": [Reply(tool_calls=[("write_file", {"path": "a.txt", "content": "x\n"})]),
                               Reply(content="done")]})
    with LoopbackServer(script) as server:
        settings = Settings(provider="custom", base_url=server.base_url, model="m", max_retries=0,
                            api_key_env="MY_LLM_KEY")
        session = Session(settings, workspace, approver=AutoApprover())
        try:
            assert session.start_react(f"use key {KEY} and also {SHAPED} to write a.txt").result(timeout=30).ok
        finally:
            session.close()
    stored = "\n".join(p.read_text() for p in paicli_home.rglob("run.json"))
    assert "[REDACTED]" in stored
    assert KEY not in stored and SHAPED not in stored
    listed = run_paicli(["undo", "--list", "--workspace", str(workspace)], home=paicli_home, cwd=workspace)
    assert listed.returncode == 0, listed.stderr
    assert "[REDACTED]" in listed.stdout and KEY not in listed.stdout and SHAPED not in listed.stdout
