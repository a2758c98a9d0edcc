"""/mcp and an MCP call's approval in the real full-screen app, in a
pseudo-terminal, with a real FastMCP server over stdio (P-9.1)."""

from __future__ import annotations

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import events, ledger_lines, paicli_env
from tests.support.mcp_config import assert_all_gone, pids_in, stdio_table
from tests.support.pty_app import PtyApp
from tests.support.server import LoopbackServer
from tests.support.timing import scaled

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(150)]
WAIT = 60.0


def test_mcp_screen_restarts_a_server_and_an_ask_mode_call_offers_a_tool_grant(workspace, paicli_home, tmp_path):
    pidfile = tmp_path / "pids"
    (paicli_home / "config.toml").write_text(
        'approval_mode = "ask"\n[mcp]\n' + f'startup_timeout = {round(scaled(40))}\n\n' + stdio_table("docs", "--pidfile", str(pidfile)),
        encoding="utf-8")
    script = Script({"react": [Reply(tool_calls=[("mcp__docs__echo", {"text": "hello"})]), Reply(content="echo done"),
                               Reply(tool_calls=[("mcp__docs__echo", {"text": "again"})]), Reply(content="no dialog")]})
    with LoopbackServer(script) as model:
        app = PtyApp(["--base-url", model.base_url, "--model", "m"], cwd=workspace, env=paicli_env(paicli_home))
        try:
            app.wait_for(lambda s: "MCP docs ready: 6 tools, 2 resources" in s, timeout=WAIT)
            app.type("/mcp")
            app.send(b"\r")
            screen = app.wait_for(lambda s: "Tools (6)" in s and "docs://guide" in s, timeout=WAIT)
            first = pids_in(pidfile)[0]
            assert f"pid {first}" in screen and "mcp__docs__note" in screen and "read-only" in screen
            app.send(b"r")
            app.wait_for(lambda s: len(pids_in(pidfile)) == 2 and f"pid {pids_in(pidfile)[1]}" in s, timeout=WAIT)
            app.send(b"\x1b")
            app.wait_for(lambda s: "MCP servers" not in s, timeout=WAIT)
            app.type("echo hello")
            app.send(b"\r")
            screen = app.wait_for(lambda s: "every call of the MCP tool mcp__docs__echo" in s, timeout=WAIT)
            assert "ASK mode: every MCP tool call waits for your yes" in screen
            app.send(b"a")
            app.wait_for(lambda s: "echo done" in s, timeout=WAIT)
            app.type("again")
            app.send(b"\r")
            app.wait_for(lambda s: "no dialog" in s, timeout=WAIT)
            app.type("/quit")
            app.send(b"\r")
            assert app.wait_exit(30) == 0
        finally:
            app.close()
    assert_all_gone(pidfile, 2, seconds=2)
    lines = ledger_lines(paicli_home)
    assert [e["payload"]["rule"] for e in events(lines, "grant_added")] == ["tool: mcp__docs__echo"]
    assert [e["payload"]["tool"] for e in events(lines, "approval_requested")] == ["mcp__docs__echo"]
    results = [(e["payload"]["ok"], e["payload"]["content"]) for e in events(lines, "tool_result")]
    assert results == [(True, "echo: hello"), (True, "echo: again")]
    states = [e["payload"]["state"] for e in events(lines, "mcp_server")]
    assert states == ["starting", "ready", "stopping", "stopped", "starting", "ready", "stopping", "stopped"]
