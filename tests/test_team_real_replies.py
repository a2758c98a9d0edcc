"""What real models write, read within the rules (issue 16 item 7, P-5.5,
P-5.6): a completed report with a null or blank reason is reviewed, and an
approval's issues are kept as notes on the step and shown with it. Through
the real client code path, orchestrator and renderers."""

from __future__ import annotations

import json

import pytest

from paicli_tui import events as ev
from paicli_tui.llm.offline.scripted import Reply
from paicli_tui.plan.model import PlanStatus, TaskStatus
from paicli_tui.present.event_lines import describe
from paicli_tui.ui.run.pane_ops import VerdictOp
from paicli_tui.records.run_views import tasks_from_plan
from paicli_tui.ui.run.run_model import RunModel
from tests.test_team_orchestrator import StepScript, Team, approve, plan_of

pytestmark = pytest.mark.timeout(30)


@pytest.mark.parametrize("reason", [None, "", "   "])
def test_a_completed_report_with_no_real_reason_is_reviewed_and_completes(tmp_path, reason):
    report_text = json.dumps({"status": "completed", "result": "ok", "reason": reason})
    script = StepScript(workers={"step_1": [Reply(content=report_text)]}, reviewers={"step_1": [approve()]})
    team = Team(tmp_path, script)
    report = team.run(plan_of(("do it", [])))

    step = report.plan.task("step_1")
    assert (report.status, step.status, step.result) == (PlanStatus.COMPLETED, TaskStatus.COMPLETED, "ok")
    assert [e.status for e in team.of(ev.WorkerReportParsed)] == ["completed"]
    assert [e.approved for e in team.of(ev.ReviewVerdictGiven)] == [True]


def test_an_approval_with_issues_keeps_them_as_notes_and_never_retries(tmp_path):
    verdict = {"approved": True, "summary": "good", "issues": ["README lacks a usage line"], "suggestions": ["add a test"]}
    script = StepScript(
        workers={"step_1": [Reply(content=json.dumps({"status": "completed", "result": "wrote it"}))]},
        reviewers={"step_1": [Reply(content=json.dumps(verdict))]},
    )
    team = Team(tmp_path, script)
    report = team.run(plan_of(("write the README", [])))

    step = report.plan.task("step_1")
    notes = ("README lacks a usage line", "add a test")
    assert (step.status, tuple(step.notes)) == (TaskStatus.COMPLETED, notes)
    [given] = team.of(ev.ReviewVerdictGiven)
    assert (given.approved, given.feedback, given.notes) == (True, "good", notes)
    assert team.of(ev.StepRetry) == [] and len(script.of("worker", "step_1")) == 1
    assert "✅ step_1: write the README — wrote it (review notes: README lacks a usage line; add a test)" in report.summary


def test_approval_notes_are_shown_in_the_pane_and_the_transcript_line():
    plan = {"tasks": [{"id": "step_1", "description": "d", "type": "ANALYSIS", "dependencies": []}]}
    model = RunModel(tasks_from_plan(plan), ("worker-1",), clock=lambda: 0.0)
    model.apply([ev.TaskDispatched("step_1", "step_1", "worker-1"), ev.ReviewStarted("reviewer", "step_1", 1)])
    given = ev.ReviewVerdictGiven("reviewer", "step_1", 1, True, "good", ("README lacks a usage line",))
    update = model.apply([given])
    (card,) = [op for op in update.output["worker-1"] if isinstance(op, VerdictOp)]
    assert card.approved and card.notes == ("README lacks a usage line",)  # listed on the verdict card
    assert describe(given).text.endswith("step_1 approved (notes: README lacks a usage line)")
    assert describe(ev.ReviewVerdictGiven("reviewer", "step_1", 1, True, "good")).text.endswith("step_1 approved")
