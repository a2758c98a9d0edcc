"""Issue 16 end to end: `paicli run --mode plan` as a subprocess against a
loopback server that first refuses response_format and whose planner first
answers prose; the run still completes, says so on screen and in the ledger,
and the ledger verifies."""

from __future__ import annotations

import json

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import events, ledger_lines, paicli_env, run_paicli
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(90)]

PLAN = json.dumps({"summary": "s", "steps": [{"id": "a", "description": "say hi", "type": "ANALYSIS", "dependencies": []}]})


def test_a_refused_schema_and_a_prose_plan_still_complete_the_run(workspace, paicli_home):
    replies = Script({"planner": [Reply(content="Sure! Here is my plan: read, then write."), Reply(content=PLAN)],
                      "task": [Reply(content="hi")]})

    def respond(request):
        if "response_format" in request.body:
            replies.requests.append(request)
            return Reply(status=400, body=json.dumps({"error": {"message": "Unsupported parameter: response_format"}}))
        return replies(request)

    with LoopbackServer(respond) as server:
        proc = run_paicli(
            ["run", "--mode", "plan", "--base-url", server.base_url, "--model", "m", "--workspace", str(workspace),
             "--yes", "say hi"],
            home=paicli_home, cwd=workspace, timeout=60, env=paicli_env(paicli_home, PAICLI_MAX_RETRIES="0"),
        )
    assert proc.returncode == 0, proc.stderr
    assert "the server refused response_format" in proc.stderr
    assert "plan rejected: " in proc.stderr and "; asking the planner to correct it" in proc.stderr
    bodies = [r.body for r in replies.requests if r.agent == "planner"]
    assert ["response_format" in b for b in bodies] == [True, False, False]
    assert all(b["max_tokens"] == 4096 for b in bodies)
    lines = ledger_lines(paicli_home)
    assert [line["payload"]["field"] for line in events(lines, "capability_dropped")] == ["response_format"]
    [asked] = events(lines, "repair_requested")
    assert asked["payload"]["kind"] == "plan" and asked["payload"]["error"] == events(lines, "plan_rejected")[0]["payload"]["error"]
    verified = run_paicli(["verify", lines[0]["session"]], home=paicli_home, cwd=workspace, env=paicli_env(paicli_home))
    assert verified.returncode == 0, verified.stdout + verified.stderr
