"""A team worker stopped by a limit still reports in the form the runner
reads: its budget-stop summary is asked under the worker report schema, as
its repairs are, so a small model's first answer after the stop is already
a report, not prose the runner cannot read."""

from __future__ import annotations

import json

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import events, ledger_lines, paicli_env, run_paicli
from tests.support.recorder import approve, done, team_plan
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(60)]


def test_the_budget_stop_summary_of_a_worker_is_asked_as_a_report_and_read(workspace, paicli_home):
    script = Script({
        "planner": [team_plan(("look at notes", []))],
        # One model call allowed: the tool call uses it, the summary follows.
        "worker": [Reply(tool_calls=[("list_dir", {"path": "."})]), done("listed the workspace: notes.txt")],
        "reviewer": [approve()],
    })
    with LoopbackServer(script) as server:
        proc = run_paicli(
            ["run", "--mode", "team", "--yes", "--provider", "llamacpp", "--base-url", server.base_url, "--model", "m",
             "--workspace", str(workspace), "--max-turns", "1", "look at the notes"],
            home=paicli_home, cwd=workspace, timeout=45, env=paicli_env(paicli_home, PAICLI_TEAM_REVIEW="false"),
        )
    summary = [r for r in script.requests if r.agent == "worker-1"][1]
    assert "Stop using tools now" in summary.messages[-1]["content"]
    asked = summary.body.get("response_format") or {}
    assert asked.get("type") == "json_object" and "completed" in json.dumps(asked.get("schema")), asked
    [report] = [line["payload"] for line in events(ledger_lines(paicli_home), "worker_report")]
    assert report["status"] != "invalid" and "notes.txt" in report["result"], (report, proc.stderr)
