"""Structured output, bounded repairs and output limits (issue 16) through
the real Session, planner, team and client code path: a scripted model
behind ScriptedTransport, the real ledger read back, `paicli verify` run on
it."""

from __future__ import annotations

import json

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.events import RepairRequested
from paicli_tui.records.ledger import read_ledger
from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
from paicli_tui.plan.ordered_schema import ORDERED_PLAN_SCHEMA
from paicli_tui.plan.schema import PLAN_REPLY_SCHEMA, PLAN_VALIDATOR
from paicli_tui.records.verify import render, verify_ledger
from paicli_tui.team.reply_schemas import REVIEW_VERDICT_SCHEMA, WORKER_REPORT_SCHEMA
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.present.event_lines import describe
from tests.support.recorder import approve, done, task_plan, team_plan

pytestmark = pytest.mark.timeout(30)

BAD_DEPENDENCY = json.dumps({"summary": "s", "steps": [
    {"id": "a", "description": "one", "dependencies": []},
    {"id": "b", "description": "two", "dependencies": ["c"]},
]})
BAD_DEPENDENCY_ERROR = 'task 2 (id "b"): dependencies[0]: unknown id "c"'


def run(tmp_path, kind: str, script: Script, goal: str = "the goal", **settings):
    """(outcome, ledger lines as dicts, ledger path) of one run."""
    from paicli_tui.session.live import Session

    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    config = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0, **settings)
    session = Session(config, workspace, approver=AutoApprover(), transport=ScriptedTransport(script))
    try:
        start = {"plan": session.start_plan, "team": session.start_team}[kind]
        outcome = start(goal).result(timeout=20)
    finally:
        session.close()
    path = session.ledger.path
    return outcome, [line.data for line in read_ledger(path)], path


def named(lines, *names) -> list[dict]:
    return [line for line in lines if line["event"] in names]


def requests_of(script: Script, agent: str):
    return [r for r in script.requests if r.agent.startswith(agent)]


# -- structured output and limits per role ------------------------------------------


@pytest.mark.parametrize("structured, expected", [
    ("auto", "json_schema"),  # the custom preset takes a JSON Schema
    ("json_object_schema", "json_object_schema"),
    ("json_object", "json_object"),
    ("off", None),
])
def test_the_planner_request_carries_the_plan_schema_per_capability(tmp_path, structured, expected):
    script = Script({"planner": [task_plan(("only", []))], "task": [Reply(content="done")]})
    outcome, _, _ = run(tmp_path, "plan", script, structured_output=structured)
    assert outcome.ok, outcome.text
    [planner] = requests_of(script, "planner")
    sent = planner.body.get("response_format")
    if expected is None:
        assert sent is None
    elif expected == "json_object":
        assert sent == {"type": "json_object"}
    elif expected == "json_object_schema":
        # The grammar form numbers the steps (plan/ordered_schema.py).
        assert sent == {"type": "json_object", "schema": ORDERED_PLAN_SCHEMA}
    else:
        assert sent == {"type": "json_schema", "json_schema": {"name": "paicli_plan", "strict": True, "schema": PLAN_REPLY_SCHEMA}}
    assert "response_format" not in requests_of(script, "task")[0].body  # tool loops are never constrained


def test_every_role_sends_its_output_limit(tmp_path):
    script = Script({"planner": [team_plan(("A", []))], "worker": [done("r")], "reviewer": [approve()]})
    outcome, _, _ = run(tmp_path, "team", script, planner_max_tokens=900, report_max_tokens=300, task_max_tokens=5000)
    assert outcome.ok, outcome.text
    [planner], [worker], [reviewer] = (requests_of(script, a) for a in ("planner", "worker", "reviewer"))
    assert (planner.body["max_tokens"], worker.body["max_tokens"], reviewer.body["max_tokens"]) == (900, 5000, 300)
    assert reviewer.body["response_format"]["json_schema"]["schema"] == REVIEW_VERDICT_SCHEMA
    assert "response_format" not in worker.body and worker.tools


def test_task_calls_send_no_limit_by_default(tmp_path):
    script = Script({"planner": [task_plan(("only", []))], "task": [Reply(content="done")]})
    run(tmp_path, "plan", script)
    assert requests_of(script, "planner")[0].body["max_tokens"] == 4096
    assert "max_tokens" not in requests_of(script, "task")[0].body


def test_a_refused_response_format_is_dropped_for_the_rest_of_the_run(tmp_path):
    def refuse(request):
        if "response_format" in request.body:
            return Reply(status=400, body=json.dumps({"error": {"message": "response_format is not supported"}}))
        return Reply(content=json.dumps({"summary": "s", "steps": [{"id": "a", "description": "x", "dependencies": []}]}))

    script = Script({"worker": [done("r")], "reviewer": [approve()]}, default=refuse)
    outcome, lines, path = run(tmp_path, "team", script)
    assert outcome.ok, outcome.text
    assert ["response_format" in r.body for r in script.requests] == [True, False, False, False]
    [dropped] = named(lines, "capability_dropped")
    assert (dropped["actor"], dropped["payload"]["field"]) == ("planner", "response_format")
    assert verify_ledger(path).ok


# -- plan repairs ---------------------------------------------------------------------


def test_a_rejected_plan_is_repaired_once_with_the_exact_error_and_then_runs(tmp_path):
    script = Script({"planner": [Reply(content=BAD_DEPENDENCY), task_plan(("fixed", []))], "task": [Reply(content="done")]})
    outcome, lines, path = run(tmp_path, "plan", script)

    assert outcome.ok and outcome.status == "COMPLETED", outcome.text
    first, repair = requests_of(script, "planner")
    assert repair.messages[:2] == first.messages
    assert repair.messages[2] == {"role": "assistant", "content": BAD_DEPENDENCY}
    assert repair.messages[3]["role"] == "user" and BAD_DEPENDENCY_ERROR in repair.messages[3]["content"]
    assert repair.body["response_format"] == first.body["response_format"]
    story = [line["event"] for line in named(lines, "plan_rejected", "repair_requested", "plan_version")]
    assert story == ["plan_rejected", "repair_requested", "plan_version"]
    rejected, asked = named(lines, "plan_rejected", "repair_requested")
    assert BAD_DEPENDENCY_ERROR in rejected["payload"]["error"]
    assert asked["payload"] == {"kind": "plan", "attempt": 1, "error": rejected["payload"]["error"], "step_id": "", "step_attempt": 0}
    assert verify_ledger(path).ok, render(verify_ledger(path))


def test_two_bad_plans_with_one_repair_fail_planning_with_the_last_error(tmp_path):
    script = Script({"planner": [Reply(content="not json at all"), Reply(content=BAD_DEPENDENCY)]})
    outcome, lines, _ = run(tmp_path, "plan", script, plan_repairs=1)
    assert (outcome.ok, outcome.status) == (False, "FAILED")
    assert outcome.text.startswith("planning failed: ") and BAD_DEPENDENCY_ERROR in outcome.text
    assert len(requests_of(script, "planner")) == 2
    assert [line["event"] for line in named(lines, "plan_rejected", "repair_requested")] == [
        "plan_rejected", "repair_requested", "plan_rejected"]


def test_no_repair_when_plan_repairs_is_zero(tmp_path):
    script = Script({"planner": [Reply(content=BAD_DEPENDENCY), task_plan(("never asked", []))]})
    outcome, lines, _ = run(tmp_path, "plan", script, plan_repairs=0)
    assert not outcome.ok and len(requests_of(script, "planner")) == 1 and not named(lines, "repair_requested")


def test_a_truncated_plan_is_reported_as_truncated_and_repaired_with_twice_the_limit(tmp_path):
    cut = Reply(content='{"summary": "s", "steps": [{"id": "a", "descr', finish_reason="length")
    script = Script({"planner": [cut, task_plan(("whole", []))], "task": [Reply(content="done")]})
    outcome, lines, _ = run(tmp_path, "plan", script, planner_max_tokens=1000)
    assert outcome.ok, outcome.text
    [rejected] = named(lines, "plan_rejected")
    assert rejected["payload"]["error"] == 'planner reply truncated at 1000 tokens (finish_reason "length")'
    assert [r.body["max_tokens"] for r in requests_of(script, "planner")] == [1000, 2000]


def test_the_repair_is_on_screen():
    line = describe(RepairRequested("planner", "plan", 1, BAD_DEPENDENCY_ERROR))
    assert line.text == f"[planner] plan rejected: {BAD_DEPENDENCY_ERROR}; asking the planner to correct it"
    line = describe(RepairRequested("reviewer", "verdict", 1, "no", "step_1", 1))
    assert line.text == "[reviewer] verdict rejected: no; asking the reviewer to correct it"


# -- report and verdict repairs ---------------------------------------------------------


def test_an_invalid_worker_report_is_repaired_in_a_tool_less_call_with_the_report_schema(tmp_path):
    script = Script({
        "planner": [team_plan(("A", []))],
        "worker": [Reply(content="I did it!"), done("the result")],
        "reviewer": [approve()],
    })
    outcome, lines, path = run(tmp_path, "team", script, report_repairs=1)

    assert outcome.ok and outcome.status == "COMPLETED", outcome.text
    first, repair = requests_of(script, "worker")
    assert first.tools and repair.tools is None, "a repair asks for a report, not more tool work"
    assert repair.body["response_format"]["json_schema"]["schema"] == WORKER_REPORT_SCHEMA
    assert repair.body["max_tokens"] == 2048
    assert repair.messages[-2] == {"role": "assistant", "content": "I did it!"}
    reports = named(lines, "worker_report")
    assert [r["payload"]["status"] for r in reports] == ["invalid", "completed"]
    [asked] = named(lines, "repair_requested")
    assert asked["actor"] == "worker-1" and asked["payload"]["kind"] == "report"
    assert asked["payload"]["error"] == reports[0]["payload"]["reason"]
    assert asked["payload"]["error"] in repair.messages[-1]["content"]
    assert verify_ledger(path).ok, render(verify_ledger(path))


def test_a_worker_report_still_invalid_after_its_repair_fails_the_step(tmp_path):
    script = Script({"planner": [team_plan(("A", []))], "worker": [Reply(content="done!"), Reply(content="really done")]})
    outcome, lines, _ = run(tmp_path, "team", script)
    assert outcome.status == "FAILED"
    assert [r["payload"]["status"] for r in named(lines, "worker_report")] == ["invalid", "invalid"]
    assert not requests_of(script, "reviewer")
    [failed] = [s for s in named(lines, "status") if s["payload"]["status"] == "FAILED"]
    assert failed["payload"]["error"].startswith("invalid worker report: ")


def test_an_unreadable_verdict_is_repaired_and_one_still_unreadable_is_a_rejection(tmp_path):
    script = Script({
        "planner": [team_plan(("A", []))],
        "worker": [done("first"), done("second")],
        "reviewer": [Reply(content="Looks great to me"), Reply(content="yes, approved"), approve()],
    })
    outcome, lines, path = run(tmp_path, "team", script)

    assert outcome.ok, outcome.text
    first, repair, second = requests_of(script, "reviewer")
    assert repair.messages[-2] == {"role": "assistant", "content": "Looks great to me"}
    assert "could not be read" in repair.messages[-1]["content"]
    assert repair.body["response_format"]["json_schema"]["schema"] == REVIEW_VERDICT_SCHEMA
    verdicts = [(v["payload"]["attempt"], v["payload"]["approved"]) for v in named(lines, "review_verdict")]
    assert verdicts == [(1, False), (1, False), (2, True)], "still unreadable after the repair: a rejection, so a retry"
    assert [line["event"] for line in named(lines, "review_verdict", "repair_requested")][:3] == [
        "review_verdict", "repair_requested", "review_verdict"]
    retry = requests_of(script, "worker")[1]
    assert retry.messages[-1]["content"].startswith("The previous result was rejected by review, reason: Review verdict could not be read")
    assert verify_ledger(path).ok, render(verify_ledger(path))


# -- the schemas themselves -------------------------------------------------------------


def test_every_plan_the_reply_schema_allows_has_the_shape_the_reader_checks():
    from jsonschema import Draft202012Validator

    sample = {"summary": "s", "steps": [{"id": "a", "description": "d", "type": "ANALYSIS", "dependencies": [], "check": ""}]}
    assert Draft202012Validator(PLAN_REPLY_SCHEMA).is_valid(sample) and PLAN_VALIDATOR.is_valid(sample)
    for schema in (PLAN_REPLY_SCHEMA, WORKER_REPORT_SCHEMA, REVIEW_VERDICT_SCHEMA):
        _strict_shape(schema)


def _strict_shape(schema: dict) -> None:
    """What strict servers demand: objects list every property as required
    and allow no others (so the schema is accepted where strict is on)."""
    if schema.get("type") == "object":
        assert schema["additionalProperties"] is False and set(schema["required"]) == set(schema["properties"])
        for sub in schema["properties"].values():
            _strict_shape(sub)
    if "items" in schema:
        _strict_shape(schema["items"])
