"""A team worker stopped by a limit with no time or tokens left for its
summary still reports: paicli writes the report from the tool calls it
saw, marked as its own, instead of an empty, unreadable one."""

from __future__ import annotations

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.llm.types import Usage
from tests.support.cli import events, ledger_lines, paicli_env, run_paicli
from tests.support.recorder import team_plan
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(60)]


def test_a_worker_stopped_with_no_summary_gets_a_report_written_by_paicli(workspace, paicli_home):
    (workspace / "notes.txt").write_text("alpha\n")
    script = Script({
        "planner": [team_plan(("read notes.txt", []))],
        # One call spends the token limit: no summary call may follow it.
        "worker": [Reply(tool_calls=[("read_file", {"path": "notes.txt"})], usage=Usage(900, 200, 0))],
    })
    with LoopbackServer(script) as server:
        proc = run_paicli(
            ["run", "--mode", "team", "--yes", "--base-url", server.base_url, "--model", "m", "--workspace",
             str(workspace), "--max-tokens", "500", "read the notes"],
            home=paicli_home, cwd=workspace, timeout=45, env=paicli_env(paicli_home, PAICLI_TEAM_REVIEW="false"),
        )
    assert proc.returncode in (0, 1), proc.stderr
    reports = [line["payload"] for line in events(ledger_lines(paicli_home), "worker_report")]
    assert [r["status"] for r in reports] == ["blocked"], reports
    assert reports[0]["result"].startswith("report written by paicli, not the model: 1 tool call")
    assert "stopped by a limit" in reports[0]["reason"]
