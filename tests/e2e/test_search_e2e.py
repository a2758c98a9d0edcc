"""grep_code end to end (issue 12, class 3): the real binary against a
loopback model that asks for a pattern Python's re never finishes, and
Ctrl+C in the middle of a long search."""

from __future__ import annotations

import signal
import time

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import ledger_lines, paicli_env, run_paicli, start_paicli
from tests.support.searches import SLOW_PATTERN, rg_searches_in, write_slow_tree
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(90)]


def _tool_messages(request) -> list[str]:
    return [m["content"] for m in request.messages if m.get("role") == "tool"]


def test_a_catastrophic_pattern_gets_an_answer(workspace, paicli_home):
    (workspace / "s.txt").write_text("a" * 41 + "b\naaaa\n", encoding="utf-8")
    script = Script({"react": [Reply(tool_calls=[("grep_code", {"pattern": "(a+)+$"})]), Reply(content="done")]})
    with LoopbackServer(script) as server:
        proc = run_paicli(["run", "--base-url", server.base_url, "--model", "m", "--workspace", str(workspace),
                           "find runs of a"], home=paicli_home, cwd=workspace, timeout=40)
    assert proc.returncode == 0, proc.stderr
    (result,) = _tool_messages(script.requests[1])
    lines = result.splitlines()
    assert "s.txt:2: aaaa" in lines and not any(line.startswith("s.txt:1:") for line in lines)


def test_ctrl_c_during_a_search_stops_rg(workspace, paicli_home):
    write_slow_tree(workspace)
    script = Script({"react": [Reply(tool_calls=[("grep_code", {"pattern": SLOW_PATTERN})]), Reply(content="done")]})
    with LoopbackServer(script) as server:
        proc = start_paicli(
            ["run", "--base-url", server.base_url, "--model", "m",
             "--workspace", str(workspace), "search"],
            home=paicli_home, cwd=workspace,
        )
        deadline = time.monotonic() + 30
        while not rg_searches_in(workspace) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        seen = rg_searches_in(workspace)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert seen, f"no rg search was seen running: {err}"
    assert proc.returncode == 130, err
    assert rg_searches_in(workspace) == []
    assert ledger_lines(paicli_home)[0]["event"] == "session_started"


def test_tool_timeout_setting_ends_a_long_search_with_a_failed_result(workspace, paicli_home):
    write_slow_tree(workspace)
    script = Script({"react": [Reply(tool_calls=[("grep_code", {"pattern": SLOW_PATTERN})]), Reply(content="done")]})
    with LoopbackServer(script) as server:
        proc = run_paicli(["run", "--base-url", server.base_url, "--model", "m", "--workspace", str(workspace),
                           "search"], home=paicli_home, cwd=workspace, timeout=40,
                          env=paicli_env(paicli_home, PAICLI_TOOL_TIMEOUT="0.5"))
    assert proc.returncode == 0, proc.stderr
    (result,) = _tool_messages(script.requests[1])
    assert "grep_code stopped after 0.5 s (deadline); narrow the search" in result
    assert rg_searches_in(workspace) == []
