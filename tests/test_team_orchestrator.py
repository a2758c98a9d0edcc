"""Team orchestrator (P-5, P-6.6) through the real client code path: a
scripted model behind ScriptedTransport, the real tool registry on a
temporary workspace, events from the real bus."""

from __future__ import annotations

import json
import re
import threading
from collections import deque

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.events import (
    EventBus,
    HistoryCleared,
    ReviewStarted,
    ReviewVerdictGiven,
    StepRetry,
    TaskDispatched,
    TaskStatusChanged,
    WorkerReportParsed,
)
from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.offline.scripted import RecordedRequest, Reply, ScriptedTransport
from paicli_tui.plan.model import PlanStatus, TaskStatus
from paicli_tui.plan.parser import PlanError, parse_plan
from paicli_tui.prompting.assembler import PromptAssembler
from paicli_tui.team.orchestrator import TeamOrchestrator
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.tools.trusted_urls import TrustedUrls
from tests.support.http import SearchBackend, serve

pytestmark = pytest.mark.timeout(30)

_WORKER_STEP = re.compile(r"Your step: (step_\d+)")
_REVIEW_STEP = re.compile(r"^Step (step_\d+) \[", re.MULTILINE)


# -- a scripted model that answers by role and step ------------------------------


class StepScript:
    """Replies per (role, step): a worker's step is named in its first user
    message, a reviewer's in its request. Steps in ``together`` hold their
    first worker request until all of them have arrived, which proves they
    were in flight at the same time (``missed`` lists any that waited alone)."""

    def __init__(self, *, planner=(), workers=None, reviewers=None, together=()) -> None:
        self.queues: dict[tuple[str, str], deque] = {("planner", ""): deque(planner)}
        for step, replies in (workers or {}).items():
            self.queues[("worker", step)] = deque(replies)
        for step, replies in (reviewers or {}).items():
            self.queues[("reviewer", step)] = deque(replies)
        self.requests: list[RecordedRequest] = []
        self.together = set(together)
        self.arrived: set[str] = set()
        self.missed: set[str] = set()
        self._lock = threading.Lock()
        self._met = threading.Condition()

    def __call__(self, request: RecordedRequest) -> Reply:
        role, step = self.classify(request)
        with self._lock:
            first = not any(self.classify(r) == (role, step) for r in self.requests)
            self.requests.append(request)
            queue = self.queues.get((role, step))
            reply = queue.popleft() if queue else None
        if role == "worker" and step in self.together and first:
            with self._met:
                self.arrived.add(step)
                self._met.notify_all()
                if not self._met.wait_for(lambda: self.together <= self.arrived, timeout=5):
                    self.missed.add(step)
        if reply is None:
            return Reply(status=500, body=json.dumps({"error": {"message": f"nothing scripted for {role} {step}"}}))
        return reply

    @staticmethod
    def classify(request: RecordedRequest) -> tuple[str, str]:
        agent = request.agent
        if agent == "planner":
            return "planner", ""
        users = [m["content"] for m in request.messages if m.get("role") == "user"]
        if agent.startswith("reviewer"):
            match = _REVIEW_STEP.search(users[-1] if users else "")
            return "reviewer", match.group(1) if match else ""
        match = _WORKER_STEP.search(users[0] if users else "")
        return "worker", match.group(1) if match else ""

    def of(self, role: str, step: str = "") -> list[RecordedRequest]:
        return [r for r in self.requests if self.classify(r) == (role, step)]


def done(result: str) -> Reply:
    return Reply(content=json.dumps({"status": "completed", "result": result}))


def blocked(reason: str) -> Reply:
    return Reply(content=json.dumps({"status": "blocked", "reason": reason}))


def approve() -> Reply:
    return Reply(content='{"approved": true, "summary": "fine", "issues": []}')


def reject(*issues: str) -> Reply:
    return Reply(content=json.dumps({"approved": False, "summary": "no", "issues": list(issues)}))


def plan_of(*steps: tuple[str, list[str]]):
    """Steps as (description, dependency ids) in order, ids step_1…"""
    entries = [{"id": f"step_{i}", "description": d, "dependencies": deps} for i, (d, deps) in enumerate(steps, 1)]
    return parse_plan(json.dumps({"summary": "test plan", "steps": entries}), id_prefix="step")


class Team:
    def __init__(self, tmp_path, script: StepScript, **settings) -> None:
        self.workspace = tmp_path / "ws"
        self.workspace.mkdir()
        self.script = script
        self.settings = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0, **settings)
        self.bus = EventBus("test-session", mode="team")
        self.events: list = []
        self.bus.subscribe(self.events.append)
        self.client = ChatClient(
            base_url=self.settings.base_url, model="m", session_id="test-session", bus=self.bus,
            transport=ScriptedTransport(script), max_retries=0,
        )
        self.orchestrator = TeamOrchestrator(
            client=self.client, registry=ToolRegistry(self.workspace, self.settings),
            assembler=PromptAssembler(self.workspace), bus=self.bus, approver=AutoApprover(),
            settings=self.settings, approval_mode="auto",
        )

    def run(self, plan, goal: str = "the goal", trusted: TrustedUrls | None = None):
        return self.orchestrator.run(goal, plan, threading.Event(), trusted)

    def of(self, kind) -> list:
        return [event for event in self.events if isinstance(event, kind)]


# -- retries and review -------------------------------------------------------------


def test_reject_reject_approve_keeps_third_result_and_retries_with_feedback_and_history(tmp_path):
    script = StepScript(
        workers={"step_1": [
            Reply(tool_calls=[("write_file", {"path": "out.txt", "content": "v1"})]),
            done("first"), done("second"), done("third"),
        ]},
        reviewers={"step_1": [reject("out.txt is empty"), reject("still wrong", {"line": 2}), approve()]},
    )
    team = Team(tmp_path, script)
    report = team.run(plan_of(("write out.txt", [])))

    step = report.plan.task("step_1")
    assert (report.status, step.status, step.result) == (PlanStatus.COMPLETED, TaskStatus.COMPLETED, "third")
    assert (team.workspace / "out.txt").read_text() == "v1"  # the worker really had tools
    first, with_tool, second, third = script.of("worker", "step_1")
    assert second.messages[: len(with_tool.messages)] == with_tool.messages  # history kept
    assert second.messages[-2] == {"role": "assistant", "content": json.dumps({"status": "completed", "result": "first"})}
    assert second.messages[-1] == {"role": "user", "content": "The previous result was rejected by review, reason: - out.txt is empty"}
    assert third.messages[: len(second.messages)] == second.messages
    assert third.messages[-1]["content"] == 'The previous result was rejected by review, reason: - still wrong\n- {"line":2}'
    assert [(e.step_id, e.attempt) for e in team.of(StepRetry)] == [("step_1", 2), ("step_1", 3)]
    assert all(e.actor == "worker-1" for e in team.of(StepRetry))
    assert [(e.worker, e.attempt) for e in team.of(TaskDispatched)] == [("worker-1", 1), ("worker-1", 2), ("worker-1", 3)]
    verdicts = team.of(ReviewVerdictGiven)
    assert [(e.actor, e.attempt, e.approved) for e in verdicts] == [("reviewer", 1, False), ("reviewer", 2, False), ("reviewer", 3, True)]
    # each review starts from a fresh history: system + one user message
    assert [len(r.messages) for r in script.of("reviewer", "step_1")] == [2, 2, 2]
    assert "third" in script.of("reviewer", "step_1")[2].messages[1]["content"]
    # history_clear: the reviewer after every review, the worker at the step boundary
    clears = [(e.actor, e.dropped) for e in team.of(HistoryCleared)]
    assert clears == [("reviewer", 2)] * 3 + [("worker-1", len(third.messages))]


def test_three_rejections_fail_with_last_result_skip_dependents_and_spare_unrelated_branch(tmp_path):
    script = StepScript(
        workers={"step_1": [done("a1"), done("a2"), done("a3")], "step_3": [done("c")]},
        reviewers={"step_1": [reject("x"), reject("y"), reject("z")], "step_3": [approve()]},
    )
    team = Team(tmp_path, script)
    report = team.run(plan_of(("A", []), ("B after A", ["step_1"]), ("C alone", [])))

    a, b, c = (report.plan.task(f"step_{i}") for i in (1, 2, 3))
    assert report.status is PlanStatus.FAILED
    assert (a.status, a.result) == (TaskStatus.FAILED, "a3")
    assert "rejected by review 3 times" in a.error and "- z" in a.error
    assert b.status is TaskStatus.SKIPPED and script.of("worker", "step_2") == []
    assert (c.status, c.result) == (TaskStatus.COMPLETED, "c")
    assert len(script.of("worker", "step_1")) == 3  # the first attempt and two retries, no more
    assert "❌ step_1" in report.summary and "last result: a3" in report.summary
    assert "⏭️ step_2" in report.summary and "✅ step_3" in report.summary


def test_blocked_step_gets_no_review_and_blocks_its_dependents(tmp_path):
    script = StepScript(workers={"step_1": [blocked("the API key file is missing")]})
    team = Team(tmp_path, script)
    report = team.run(plan_of(("deploy", []), ("verify", ["step_1"])))

    step = report.plan.task("step_1")
    assert (step.status, step.error) == (TaskStatus.BLOCKED, "the API key file is missing")
    assert report.plan.task("step_2").status is TaskStatus.SKIPPED
    assert [r.agent for r in script.requests] == ["worker-1"]  # no review, no retry
    assert team.of(ReviewStarted) == []
    assert [e.status for e in team.of(WorkerReportParsed)] == ["blocked"]
    assert "⛔ step_1" in report.summary


@pytest.mark.parametrize("reply", ["I did it!", '{"status": "completed", "result": "x", "reason": "y"}'])
def test_invalid_report_with_no_repair_left_fails_at_once_without_review(tmp_path, reply):
    script = StepScript(workers={"step_1": [Reply(content=reply)]})
    team = Team(tmp_path, script, report_repairs=0)
    report = team.run(plan_of(("do it", [])))

    step = report.plan.task("step_1")
    assert step.status is TaskStatus.FAILED and step.error.startswith("invalid worker report: ")
    assert [r.agent for r in script.requests] == ["worker-1"]
    assert [e.status for e in team.of(WorkerReportParsed)] == ["invalid"]


def test_an_empty_worker_reply_fails_the_step_at_once_without_review(tmp_path):
    # The agent loop itself fails an empty reply (no text, no tool calls): a
    # worker that said nothing has not reported, as a /plan task has not.
    script = StepScript(workers={"step_1": [Reply(content="")]})
    team = Team(tmp_path, script)
    report = team.run(plan_of(("do it", [])))

    step = report.plan.task("step_1")
    assert step.status is TaskStatus.FAILED and step.error.endswith("the model returned an empty reply")
    assert [r.agent for r in script.requests] == ["worker-1"]
    assert team.of(ReviewStarted) == []


def test_reviewer_call_failing_fails_the_step_with_the_result_retained(tmp_path):
    script = StepScript(workers={"step_1": [done("the result")]}, reviewers={"step_1": [Reply(status=400)]})
    team = Team(tmp_path, script)
    report = team.run(plan_of(("do it", [])))

    step = report.plan.task("step_1")
    assert (step.status, step.result) == (TaskStatus.FAILED, "the result")
    assert step.error.startswith("review failed: ")
    assert len(script.of("worker", "step_1")) == 1  # a failed review is not a rejection: no retry
    assert team.of(ReviewVerdictGiven) == []


def test_reviewer_tool_calls_are_not_executed_and_fail_the_step(tmp_path):
    sneaky = Reply(tool_calls=[("write_file", {"path": "pwned.txt", "content": "x"})])
    script = StepScript(workers={"step_1": [done("r")]}, reviewers={"step_1": [sneaky]})
    team = Team(tmp_path, script)
    report = team.run(plan_of(("do it", [])))

    step = report.plan.task("step_1")
    assert step.status is TaskStatus.FAILED and "this role has no tools; tool call not executed" in step.error
    assert not (team.workspace / "pwned.txt").exists()


def test_worker_model_failure_fails_the_step(tmp_path):
    script = StepScript(workers={"step_1": [Reply(status=400)]})
    team = Team(tmp_path, script)
    report = team.run(plan_of(("do it", [])))
    step = report.plan.task("step_1")
    assert step.status is TaskStatus.FAILED and step.error.startswith("worker-1: ")
    assert script.of("reviewer", "step_1") == []


# -- planner, tools and context ---------------------------------------------------------


def test_planner_and_reviewer_requests_never_carry_tools(tmp_path):
    steps = {"summary": "s", "steps": [{"id": "a", "description": "look", "dependencies": []}]}
    script = StepScript(planner=[Reply(content=json.dumps(steps))], workers={"step_1": [done("r")]}, reviewers={"step_1": [approve()]})
    team = Team(tmp_path, script)
    plan = team.orchestrator.plan("the goal", threading.Event())
    assert plan.ids == ["step_1"]
    team.run(plan)

    by_agent = {r.agent: r for r in script.requests}
    assert set(by_agent) == {"planner", "worker-1", "reviewer"}
    assert "tools" not in by_agent["planner"].body and "tools" not in by_agent["reviewer"].body
    assert "read_file" in by_agent["worker-1"].tools


def test_planner_answering_with_tool_calls_is_an_error_and_nothing_runs(tmp_path):
    script = StepScript(planner=[Reply(tool_calls=[("write_file", {"path": "p.txt", "content": "x"})])])
    team = Team(tmp_path, script)
    with pytest.raises(PlanError, match="this role has no tools; tool call not executed"):
        team.orchestrator.plan("the goal", threading.Event())
    assert not (team.workspace / "p.txt").exists()
    assert "tools" not in script.requests[0].body


def test_dependency_result_longer_than_500_chars_arrives_cut(tmp_path):
    long = "x" * 499 + "YZ" + "w" * 100
    script = StepScript(
        workers={"step_1": [done(long)], "step_2": [done("ok")], "step_3": [done("ok")]},
        reviewers={f"step_{i}": [approve()] for i in (1, 2, 3)},
    )
    team = Team(tmp_path, script, workers=1)
    team.run(plan_of(("make a long text", []), ("use it", ["step_1"]), ("unrelated", [])))

    (dependent,) = script.of("worker", "step_2")
    first_user = dependent.messages[1]["content"]
    assert "x" * 499 + "Y…" in first_user and "YZ" not in first_user
    assert "- step_1: make a long text" in first_user
    (unrelated,) = script.of("worker", "step_3")
    assert "Dependencies: none" in unrelated.messages[1]["content"] and "xxx" not in unrelated.messages[1]["content"]
    # worker-1 served all three steps, each from a fresh history
    assert all(len(r.messages) == 2 for r in script.requests if r.agent == "worker-1")


def test_parallel_steps_never_exceed_the_workers_and_never_share_one(tmp_path):
    n = 5
    script = StepScript(
        workers={f"step_{i}": [done(f"r{i}")] for i in range(1, n + 1)},
        reviewers={f"step_{i}": [approve()] for i in range(1, n + 1)},
        together={"step_1", "step_2"},
    )
    team = Team(tmp_path, script, workers=2)
    report = team.run(plan_of(*[(f"independent {i}", []) for i in range(1, n + 1)]))

    assert report.status is PlanStatus.COMPLETED and not script.missed  # step_1 and step_2 really overlapped
    running: dict[str, str] = {}
    peak = 0
    for event in team.events:
        if isinstance(event, TaskDispatched) and event.attempt == 1:
            assert event.worker not in running.values(), f"{event.worker} got {event.task_id} while busy"
            running[event.task_id] = event.worker
            peak = max(peak, len(running))
        elif isinstance(event, TaskStatusChanged) and event.status != "RUNNING":
            running.pop(event.task_id, None)
    assert peak == 2
    assert {e.worker for e in team.of(TaskDispatched)} == {"worker-1", "worker-2"}
    # a run with parallel rounds gives every step its own reviewer instance
    reviewers = {e.step_id: e.actor for e in team.of(ReviewStarted)}
    assert reviewers == {f"step_{i}": f"reviewer-step_{i}" for i in range(1, n + 1)}


# -- trusted URLs flow down completed dependencies only (P-6.6) ----------------------------


@pytest.fixture
def web():
    with serve(SearchBackend) as base_url:
        yield base_url


def _tool_results(requests: list[RecordedRequest]) -> list[str]:
    return [m["content"] for r in requests for m in r.messages if m.get("role") == "tool"]


def test_found_urls_reach_declared_dependents_only(tmp_path, web):
    page = f"{web}/page"
    fetch = Reply(tool_calls=[("web_fetch", {"url": page})])
    script = StepScript(
        workers={
            "step_1": [Reply(tool_calls=[("web_search", {"query": "docs"})]), done(f"found {page}")],
            "step_2": [fetch, done("read it")],
            "step_3": [fetch, done("could not")],
        },
        reviewers={f"step_{i}": [approve()] for i in (1, 2, 3)},
    )
    # one worker: step_3 runs after step_1 completed, so only the branch decides
    team = Team(tmp_path, script, workers=1, search_url=web)
    report = team.run(plan_of(("search", []), ("read what step_1 found", ["step_1"]), ("sibling", [])))

    assert report.status is PlanStatus.COMPLETED
    dependent = script.of("worker", "step_2")
    assert f"Trusted URLs passed down: {page}" in dependent[0].messages[1]["content"]
    (fetched,) = _tool_results(dependent)
    assert "the secret page body" in fetched
    sibling = script.of("worker", "step_3")
    (refused,) = _tool_results(sibling)
    assert "refused" in refused and "the secret page body" not in refused
    assert "Trusted URLs" not in sibling[0].messages[1]["content"]


def test_budget_stop_summary_is_read_as_the_report(tmp_path):
    script = StepScript(
        workers={"step_1": [Reply(tool_calls=[("list_dir", {"path": "."})]), done("summarised")]},
        reviewers={"step_1": [approve()]},
    )
    team = Team(tmp_path, script, max_turns=1)
    report = team.run(plan_of(("look around", [])))

    step = report.plan.task("step_1")
    assert (step.status, step.result) == (TaskStatus.COMPLETED, "summarised")
    summary_request = script.of("worker", "step_1")[1]
    assert "tools" not in summary_request.body  # the budget's final call is tool-less
    assert [e.status for e in team.of(WorkerReportParsed)] == ["completed"]


def test_cancel_during_a_step_skips_it_without_review(tmp_path):
    cancel = threading.Event()

    class CancellingScript(StepScript):
        def __call__(self, request):
            reply = super().__call__(request)
            cancel.set()  # the person presses Esc while the worker waits for the model
            return reply

    script = CancellingScript(workers={"step_1": [Reply(content="never seen", delay=10)]})
    team = Team(tmp_path, script)
    report = team.orchestrator.run("goal", plan_of(("slow", []), ("after", ["step_1"])), cancel)

    assert report.status is PlanStatus.CANCELLED
    assert [task.status for task in report.plan.tasks] == [TaskStatus.SKIPPED, TaskStatus.SKIPPED]
    assert [r.agent for r in script.requests] == ["worker-1"]
    assert [e.actor for e in team.of(HistoryCleared)] == ["worker-1"]


def test_an_approval_that_arrived_before_the_cancel_keeps_the_step_completed(tmp_path):
    """Esc pressed just after the reviewer answered: the approved work stays
    completed; only what the cancel interrupted is marked cancelled."""
    cancel = threading.Event()
    script = StepScript(workers={"step_1": [done("the result")]}, reviewers={"step_1": [approve()]})
    team = Team(tmp_path, script)

    def press_escape_after_the_verdict_arrived(event) -> None:
        if getattr(event, "name", "") == "model_response" and event.actor.startswith("reviewer"):
            cancel.set()
            # what the run's thread does within 50 ms, done at once: the step's own flag
            assert team.orchestrator.executor.cancel_task("step_1")

    team.bus.subscribe(press_escape_after_the_verdict_arrived)
    report = team.orchestrator.run("goal", plan_of(("first", []), ("after", ["step_1"])), cancel)

    first, after = report.plan.tasks
    assert (first.status, first.result) == (TaskStatus.COMPLETED, "the result")
    assert (after.status, after.error) == (TaskStatus.SKIPPED, "not started: the run was cancelled")
    assert report.status is PlanStatus.CANCELLED


def test_a_report_that_arrived_before_the_cancel_is_not_reviewed_and_the_step_is_cancelled(tmp_path):
    cancel = threading.Event()
    script = StepScript(workers={"step_1": [done("unreviewed")]}, reviewers={"step_1": [approve()]})
    team = Team(tmp_path, script)

    def press_escape_after_the_report_arrived(event) -> None:
        if getattr(event, "name", "") == "model_response" and event.actor.startswith("worker"):
            cancel.set()
            assert team.orchestrator.executor.cancel_task("step_1")

    team.bus.subscribe(press_escape_after_the_report_arrived)
    report = team.orchestrator.run("goal", plan_of(("first", [])), cancel)

    assert [e.status for e in team.of(WorkerReportParsed)] == ["completed"]  # the report was read
    assert script.of("reviewer", "step_1") == []  # but nothing can pass it after the cancel (fail-closed)
    assert (report.plan.tasks[0].status, report.plan.tasks[0].error) == (TaskStatus.SKIPPED, "cancelled")


def test_every_reviewer_of_a_parallel_run_is_named_after_its_step_the_lone_last_one_too(tmp_path):
    script = StepScript(
        workers={f"step_{i}": [done(f"r{i}")] for i in (1, 2, 3)},
        reviewers={f"step_{i}": [approve()] for i in (1, 2, 3)},
    )
    team = Team(tmp_path, script, workers=2)
    team.run(plan_of(("one", []), ("two", []), ("summarise", ["step_1", "step_2"])))
    assert {e.step_id: e.actor for e in team.of(ReviewStarted)} == {
        "step_1": "reviewer-step_1", "step_2": "reviewer-step_2", "step_3": "reviewer-step_3",
    }


def test_a_run_whose_steps_go_one_at_a_time_uses_the_one_reviewer(tmp_path):
    script = StepScript(
        workers={f"step_{i}": [done(f"r{i}")] for i in (1, 2)},
        reviewers={f"step_{i}": [approve()] for i in (1, 2)},
    )
    team = Team(tmp_path, script, workers=2)
    team.run(plan_of(("one", []), ("two", ["step_1"])))  # a chain: never two steps at once
    assert [e.actor for e in team.of(ReviewStarted)] == ["reviewer", "reviewer"]
