"""Headless line-mode review (P-4.4) and the review → amend → review loop."""

from __future__ import annotations

import io
import json

import pytest

from paicli_tui.llm.types import ChatResult, ModelConnectionError
from paicli_tui.plan.model import Plan, Task, TaskType
from paicli_tui.plan.planner import Planner
from paicli_tui.plan.review import LineReviewer, ReviewDecision, review_loop
from paicli_tui.prompting.assembler import PromptAssembler


def diamond() -> Plan:
    return Plan(
        [
            Task("task_1", "read the README", TaskType.FILE_READ),
            Task("task_2", "list modules", TaskType.FILE_READ),
            Task("task_3", "write overview", TaskType.FILE_WRITE, dependencies=["task_1", "task_2"]),
            Task("task_4", "check links", TaskType.VERIFICATION, dependencies=["task_3"]),
        ],
        summary="Document the project",
    )


def review(lines: str, plan: Plan | None = None) -> tuple[ReviewDecision, str]:
    out = io.StringIO()
    decision = LineReviewer(io.StringIO(lines), out).review(plan or diamond(), "Write docs")
    return decision, out.getvalue()


@pytest.mark.parametrize("answer", ["\n", "y\n", "run\n", "  RUN \n", "Y\n"])
def test_empty_y_or_run_runs(answer):
    decision, _ = review(answer)
    assert decision == ReviewDecision("run")


def test_collapsed_summary_shows_goal_count_rounds_and_first_round():
    _, out = review("\n")
    assert "Goal: Write docs" in out
    assert "4 tasks in 3 parallel rounds" in out
    assert "First round:\n  task_1 [FILE_READ] read the README\n  task_2 [FILE_READ] list modules\n" in out
    assert "check links" not in out, "the collapsed view shows only the first round"


def test_a_team_plan_is_counted_in_steps():
    team = Plan([Task("step_1", "read", TaskType.FILE_READ), Task("step_2", "write", dependencies=["step_1"])])
    _, out = review("\n", team)
    assert "2 steps in 2 parallel rounds" in out and "task" not in out


def test_view_prints_the_full_plan_with_dependencies_then_asks_again():
    decision, out = review("/view\ny\n")
    assert decision.action == "run"
    assert "task_3 [FILE_WRITE] write overview\n    depends on: task_1, task_2" in out
    assert "task_4 [VERIFICATION] check links\n    depends on: task_3" in out
    assert "Round 2: task_3" in out
    assert out.count("Run this plan?") == 2


@pytest.mark.parametrize("answer", ["cancel\n", "esc\n", "ESC\n"])
def test_cancel_or_esc_cancels(answer):
    assert review(answer)[0].action == "cancel"


def test_end_of_input_cancels():
    decision, out = review("")
    assert decision.action == "cancel"
    assert "end of input" in out


def test_other_text_is_an_amendment():
    assert review("also update the CHANGELOG\n")[0] == ReviewDecision("amend", amendment="also update the CHANGELOG")


def test_type_warnings_are_shown():
    plan = diamond()
    plan.tasks[0].type_warning = 'type "SEARCH" is not one of the five; treated as ANALYSIS'
    _, out = review("\n", plan)
    assert 'Warning: task_1: type "SEARCH"' in out


class ScriptedChat:
    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.calls: list[list[dict]] = []

    def chat(self, messages, *, agent, tools=None, stream=True, cancel=None, on_delta=None) -> ChatResult:
        self.calls.append(messages)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return ChatResult(reply)


def amended_reply() -> str:
    steps = [t.to_dict() for t in diamond().tasks] + [
        {"id": "task_5", "description": "update the CHANGELOG", "type": "FILE_WRITE", "dependencies": ["task_3"]}
    ]
    return json.dumps({"summary": "docs and changelog", "steps": steps})


def test_amend_then_run_reviews_the_revised_plan(tmp_path):
    client = ScriptedChat(amended_reply())
    planner = Planner(client, PromptAssembler(tmp_path))
    out = io.StringIO()
    reviewer = LineReviewer(io.StringIO("also update the CHANGELOG\n\n"), out)
    chosen = review_loop(planner, reviewer, "Write docs", diamond())
    assert chosen is not None and chosen.ids[-1] == "task_5"
    assert chosen.goal == "Write docs\nAmendment: also update the CHANGELOG"
    assert "Amendment: also update the CHANGELOG" in client.calls[0][1]["content"]
    assert "5 tasks in 3 parallel rounds" in out.getvalue(), "the revised plan was reviewed again"


def test_a_rejected_revision_keeps_the_previous_plan_under_review(tmp_path):
    client = ScriptedChat("Sure, here you go!", ModelConnectionError("connection refused"))
    planner = Planner(client, PromptAssembler(tmp_path))
    errors: list[str] = []
    original = diamond()
    reviewer = LineReviewer(io.StringIO("add tests\nadd tests again\nrun\n"), io.StringIO())
    chosen = review_loop(planner, reviewer, "Write docs", original, on_error=errors.append)
    assert chosen is original and chosen.goal == "Write docs"
    assert len(errors) == 2
    assert errors[0].startswith("The revised plan was rejected, the previous plan is kept: ")
    assert errors[1] == "The planner call failed, the previous plan is kept: connection refused"


def test_cancel_in_the_loop_returns_none_and_asks_the_planner_nothing():
    class NoPlanner:
        def revise(self, plan, goal, amendment):
            raise AssertionError("not called")

    reviewer = LineReviewer(io.StringIO("cancel\n"), io.StringIO())
    assert review_loop(NoPlanner(), reviewer, "g", diamond()) is None


def test_a_hand_edited_plan_from_the_reviewer_is_the_one_that_runs():
    edited = Plan([Task("task_1", "only this")])

    class Editor:
        def review(self, plan, goal):
            return ReviewDecision("run", plan=edited)

    chosen = review_loop(None, Editor(), "g", diamond())
    assert chosen is edited and chosen.goal == "g"


def test_amending_a_hand_edited_plan_revises_the_edited_plan():
    """Edits made in review before an amendment are what gets amended."""
    from paicli_tui.plan.model import Plan, Task
    from paicli_tui.plan.review import ReviewDecision, review_loop

    original = Plan([Task("task_1", "read")])
    edited = Plan([Task("task_1", "read the README carefully")])
    seen: list[str] = []

    class Planner:
        def revise(self, plan, goal, amendment):
            seen.append(plan.tasks[0].description)
            revised = Plan([Task("task_1", plan.tasks[0].description + " + " + amendment)])
            revised.goal = f"{goal}\nAmendment: {amendment}"
            return revised

    decisions = iter([ReviewDecision("amend", amendment="be brief", plan=edited), ReviewDecision("run")])

    class Reviewer:
        def review(self, plan, goal):
            return next(decisions)

    chosen = review_loop(Planner(), Reviewer(), "goal", original)
    assert seen == ["read the README carefully"]
    assert chosen.tasks[0].description == "read the README carefully + be brief"
