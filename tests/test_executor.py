"""PlanExecutor: failure, replan, cancel rules (P-4.6, P-4.7), task context
(P-4.5) and the summary (P-5.10). No timing assertions: ordering is forced
with events, and everything is checked from the recorded events."""

from __future__ import annotations

import threading

import pytest

from paicli_tui.events import EventBus, ReplanTriggered
from paicli_tui.plan.context import task_message
from paicli_tui.plan.executor import PlanExecutor, TaskOutcome
from paicli_tui.plan.model import Plan, PlanStatus, Task, TaskStatus, TaskType
from paicli_tui.plan.summary import summarize
from tests.test_scheduler import announce, ledger_violations

pytestmark = pytest.mark.timeout(20)


def plan_of(*specs: tuple[str, list[str]]) -> Plan:
    return Plan([Task(tid, f"do {tid}", dependencies=deps) for tid, deps in specs])


class Recorder:
    def __init__(self, plan: Plan) -> None:
        self.bus = EventBus("test", "plan")
        self.events: list = announce(plan)
        self._lock = threading.Lock()
        self.bus.subscribe(self._record)

    def _record(self, event) -> None:
        with self._lock:
            self.events.append(event)

    def names(self, name: str) -> list:
        return [e for e in self.events if e.name == name]

    def statuses(self, task_id: str) -> list[str]:
        return [e.status for e in self.events if e.name == "status" and e.task_id == task_id]


def complete(task, plan, worker, cancel) -> TaskOutcome:
    return TaskOutcome("completed", result=f"result of {task.id}")


def test_a_runner_exception_fails_the_task_and_skips_only_its_dependents():
    plan = plan_of(("task_1", []), ("task_2", ["task_1"]), ("task_3", []), ("task_4", ["task_3"]))

    def runner(task, plan, worker, cancel):
        if task.id == "task_1":
            raise ConnectionError("model call failed: connection refused")
        return complete(task, plan, worker, cancel)

    rec = Recorder(plan)
    report = PlanExecutor(plan, runner, goal="g", bus=rec.bus).run(threading.Event())
    assert report.status is PlanStatus.FAILED
    assert plan.task("task_1").status is TaskStatus.FAILED
    assert plan.task("task_1").error == "model call failed: connection refused"
    assert plan.task("task_2").status is TaskStatus.SKIPPED
    assert plan.task("task_2").error == "dependency task_1 failed"
    assert [plan.task(t).status for t in ("task_3", "task_4")] == [TaskStatus.COMPLETED] * 2
    assert rec.statuses("task_2") == ["SKIPPED"], "a skipped task is never dispatched"
    assert ledger_violations(rec.events, 4) == []
    finished = rec.names("run_finished")[-1]
    assert finished.status == "FAILED"
    assert finished.counts == {"completed": 2, "failed": 1, "blocked": 0, "cancelled": 0, "skipped": 1}


def test_dispatch_comes_before_the_runner_and_names_a_worker():
    plan = plan_of(("task_1", []), ("task_2", ["task_1"]))
    rec = Recorder(plan)
    seen_at_start: list[int] = []

    def runner(task, plan, worker, cancel):
        seen_at_start.append(len(rec.names("dispatch")))
        assert rec.names("dispatch")[-1].worker == worker
        return complete(task, plan, worker, cancel)

    PlanExecutor(plan, runner, goal="g", bus=rec.bus, parallelism=2).run(threading.Event())
    assert seen_at_start == [1, 2]
    first = rec.names("dispatch")[0]
    assert (first.actor, first.task_id, first.worker, first.attempt) == ("task_1", "task_1", "worker-1", 1)
    assert rec.statuses("task_1") == ["RUNNING", "COMPLETED"]


def test_failure_below_half_replans_and_nothing_starts_after_the_trigger():
    # task_2 is in flight when task_1 fails; it must finish, and task_3 (ready
    # the moment task_2 completes) must not start in the old plan.
    plan = plan_of(("task_1", []), ("task_2", []), ("task_3", ["task_2"]), ("task_4", ["task_3"]))
    rec = Recorder(plan)
    triggered = threading.Event()
    rec.bus.subscribe(lambda e: triggered.set() if isinstance(e, ReplanTriggered) else None)
    calls: list[tuple] = []

    def runner(task, plan, worker, cancel):
        if task.description.startswith("new"):
            return complete(task, plan, worker, cancel)
        if task.id == "task_1":
            raise RuntimeError("tests do not compile")
        assert triggered.wait(5)
        return complete(task, plan, worker, cancel)

    def replanner(current: Plan, failed: Task, reason: str) -> Plan:
        calls.append((failed.id, reason, current.task("task_2").status, current.task("task_2").result))
        return Plan([Task("task_1", "new fix"), Task("task_2", "new check", dependencies=["task_1"])])

    report = PlanExecutor(plan, runner, goal="g", bus=rec.bus, replanner=replanner).run(threading.Event())
    assert calls == [("task_1", "tests do not compile", TaskStatus.COMPLETED, "result of task_2")]
    assert report.status is PlanStatus.COMPLETED and report.replans == 1
    assert [len(p.tasks) for p in report.history] == [4, 2] and report.plan is report.history[-1]
    assert plan.task("task_3").status is TaskStatus.SKIPPED and plan.task("task_3").error == "replaced by a replan"
    assert ledger_violations(rec.events, 4) == []
    names = [e.name for e in rec.events]
    trigger_at = names.index("replan_triggered")
    version_at = names.index("plan_version", 1)
    assert "dispatch" not in names[trigger_at:version_at]
    replan_version = rec.events[version_at]
    assert (replan_version.version, replan_version.origin) == (2, "replan")
    assert [t["description"] for t in replan_version.plan["tasks"]] == ["new fix", "new check"]
    assert "after 1 replan" in report.summary and "Plan version 1" in report.summary


def test_failure_at_half_or_more_skips_dependents_and_never_replans():
    plan = plan_of(
        ("task_1", []), ("task_2", []), ("task_3", []),
        ("task_4", ["task_1"]), ("task_5", ["task_4"]), ("task_6", ["task_2"]),
    )
    rec = Recorder(plan)

    def runner(task, plan, worker, cancel):
        if task.id == "task_4":
            return TaskOutcome("failed", error="lint errors")
        return complete(task, plan, worker, cancel)

    def replanner(*args):
        raise AssertionError("3 of 6 completed is 50 %: no replan")

    report = PlanExecutor(plan, runner, goal="g", bus=rec.bus, policy="batch", replanner=replanner).run(threading.Event())
    assert report.status is PlanStatus.FAILED and report.replans == 0
    assert plan.task("task_5").status is TaskStatus.SKIPPED
    assert plan.task("task_6").status is TaskStatus.COMPLETED
    assert rec.names("replan_triggered") == []


def test_replan_limit_reached_then_dependents_are_skipped():
    def failing_plan() -> Plan:
        return plan_of(("task_1", []), ("task_2", ["task_1"]), ("task_3", []), ("task_4", []), ("task_5", []))

    replanned: list[int] = []

    def runner(task, plan, worker, cancel):
        if task.id == "task_1":
            return TaskOutcome("failed", error="still broken")
        return complete(task, plan, worker, cancel)

    def replanner(current, failed, reason):
        replanned.append(1)
        return failing_plan()

    plan = plan_of(("task_1", []), ("task_2", ["task_1"]))
    rec = Recorder(plan)
    report = PlanExecutor(plan, runner, goal="g", bus=rec.bus, replanner=replanner, parallelism=1).run(threading.Event())
    assert len(replanned) == 2 and report.replans == 2
    assert [e.replans for e in rec.names("replan_triggered")] == [1, 2]
    assert report.status is PlanStatus.FAILED
    final = report.plan
    assert final.task("task_2").status is TaskStatus.SKIPPED
    assert all(final.task(t).status is TaskStatus.COMPLETED for t in ("task_3", "task_4", "task_5"))
    assert [e.version for e in rec.names("plan_version")] == [1, 2, 3]
    assert ledger_violations(rec.events, 1) == []


def test_a_replanner_error_fails_the_run_with_its_message():
    plan = plan_of(("task_1", []), ("task_2", ["task_1"]))

    def replanner(*args):
        raise ValueError("step 2 (id \"b\"): dependencies[0]: unknown id \"z\"")

    runner = lambda task, *a: TaskOutcome("failed", error="boom")  # noqa: E731
    report = PlanExecutor(plan, runner, goal="g", replanner=replanner).run(threading.Event())
    assert report.status is PlanStatus.FAILED
    assert report.error == "replan failed: step 2 (id \"b\"): dependencies[0]: unknown id \"z\""
    assert report.error in report.summary
    assert plan.task("task_2").status is TaskStatus.SKIPPED


def test_blocked_task_skips_dependents_and_is_never_replanned():
    plan = plan_of(("task_1", []), ("task_2", ["task_1"]), ("task_3", []))

    def runner(task, plan, worker, cancel):
        if task.id == "task_1":
            return TaskOutcome("blocked", result="half", error="needs the API token")
        return complete(task, plan, worker, cancel)

    def replanner(*args):
        raise AssertionError("blocked is never replanned")

    rec = Recorder(plan)
    report = PlanExecutor(plan, runner, goal="g", bus=rec.bus, replanner=replanner).run(threading.Event())
    assert plan.task("task_1").status is TaskStatus.BLOCKED
    assert plan.task("task_2").error == "dependency task_1 blocked"
    assert plan.task("task_3").status is TaskStatus.COMPLETED
    assert report.status is PlanStatus.FAILED
    assert "⛔ task_1: do task_1 — blocked: needs the API token (partial: half)" in report.summary


def test_cancel_interrupts_running_tasks_and_keeps_what_completed():
    plan = plan_of(("task_1", []), ("task_2", ["task_1"]), ("task_3", ["task_1"]), ("task_4", ["task_2", "task_3"]))
    cancel = threading.Event()
    both_running = threading.Barrier(3)
    saw_cancel: list[str] = []

    def runner(task, plan, worker, task_cancel):
        if task.id == "task_1":
            return complete(task, plan, worker, task_cancel)
        both_running.wait(5)
        assert task_cancel.wait(5)
        saw_cancel.append(task.id)
        return TaskOutcome("cancelled")

    def replanner(*args):
        raise AssertionError("no replan after a cancel")

    rec = Recorder(plan)
    executor = PlanExecutor(plan, runner, goal="g", bus=rec.bus, replanner=replanner)
    thread = threading.Thread(target=lambda: (both_running.wait(5), cancel.set()))
    thread.start()
    report = executor.run(cancel)
    thread.join(5)
    assert report.status is PlanStatus.CANCELLED
    assert sorted(saw_cancel) == ["task_2", "task_3"]
    # the two the cancel interrupted are cancelled; the one it never started is skipped
    assert [plan.task(t).error for t in ("task_2", "task_3", "task_4")] == [
        "cancelled", "cancelled", "not started: the run was cancelled"]
    assert plan.task("task_1").status is TaskStatus.COMPLETED
    assert report.summary.splitlines()[0].endswith("1 completed, 2 cancelled, 1 skipped")
    assert report.summary.splitlines()[1] == "✅ task_1: do task_1 — result of task_1"
    assert rec.statuses("task_4") == ["SKIPPED"]
    assert rec.names("run_finished")[-1].status == "CANCELLED"


def test_cancel_task_stops_one_task_and_its_dependents_only():
    plan = plan_of(("task_1", []), ("task_2", ["task_1"]), ("task_3", []))
    started = threading.Event()

    def runner(task, plan, worker, cancel):
        if task.id == "task_1":
            started.set()
            assert cancel.wait(5)
            return TaskOutcome("cancelled")
        return complete(task, plan, worker, cancel)

    executor = PlanExecutor(plan, runner, goal="g")
    threading.Thread(target=lambda: (started.wait(5), executor.cancel_task("task_1"))).start()
    report = executor.run(threading.Event())
    assert plan.task("task_1").status is TaskStatus.SKIPPED and plan.task("task_1").error == "cancelled"
    assert plan.task("task_2").error == "dependency task_1 was cancelled"
    assert plan.task("task_3").status is TaskStatus.COMPLETED
    assert report.status is PlanStatus.FAILED


def test_a_runner_returning_garbage_fails_the_task():
    plan = plan_of(("task_1", []))
    report = PlanExecutor(plan, lambda *a: "done", goal="g").run(threading.Event())
    assert plan.task("task_1").status is TaskStatus.FAILED
    assert "returned str" in plan.task("task_1").error
    assert report.status is PlanStatus.FAILED


def test_named_workers_are_slots_never_shared():
    plan = plan_of(*[(f"step_{i}", []) for i in range(1, 7)])
    rec = Recorder(plan)
    report = PlanExecutor(
        plan, complete, goal="g", bus=rec.bus, workers=["worker-1", "worker-2"], parallelism=2
    ).run(threading.Event())
    assert report.status is PlanStatus.COMPLETED
    assert {e.worker for e in rec.names("dispatch")} == {"worker-1", "worker-2"}
    assert ledger_violations(rec.events, 2) == []


def test_a_dependency_chain_stays_on_the_thread_that_ran_its_first_task():
    # The worker that finishes a task runs what it released itself: no
    # hand-off through another thread per task (the point of the design).
    plan = plan_of(*[(f"task_{i}", [f"task_{i - 1}"] if i > 1 else []) for i in range(1, 7)])
    threads: dict[str, int] = {}

    def runner(task, plan, worker, cancel):
        threads[task.id] = threading.get_ident()
        return complete(task, plan, worker, cancel)

    rec = Recorder(plan)
    report = PlanExecutor(plan, runner, goal="g", bus=rec.bus, parallelism=4).run(threading.Event())
    assert report.status is PlanStatus.COMPLETED
    assert len(set(threads.values())) == 1
    assert {e.worker for e in rec.names("dispatch")} == {"worker-1"}
    assert threading.get_ident() not in threads.values(), "tasks never run on the caller's thread"


def test_a_fan_out_keeps_the_longest_chain_on_the_finishing_thread_and_hands_the_rest_over():
    plan = plan_of(
        ("task_1", []), ("task_2", ["task_1"]), ("task_3", ["task_1"]), ("task_4", ["task_1"]),
        ("task_5", ["task_3"]),
    )
    threads: dict[str, int] = {}
    started = threading.Barrier(3, timeout=5)

    def runner(task, plan, worker, cancel):
        threads[task.id] = threading.get_ident()
        if task.id in ("task_2", "task_3", "task_4"):
            started.wait()  # all three dependents run at the same time
        return complete(task, plan, worker, cancel)

    rec = Recorder(plan)
    report = PlanExecutor(plan, runner, goal="g", bus=rec.bus, parallelism=4).run(threading.Event())
    assert report.status is PlanStatus.COMPLETED
    assert threads["task_3"] == threads["task_1"], "task_3 heads the longest remaining chain"
    assert len({threads[t] for t in ("task_2", "task_3", "task_4")}) == 3
    dispatched = [(e.task_id, e.worker) for e in rec.names("dispatch")]
    assert dispatched[:4] == [("task_1", "worker-1"), ("task_3", "worker-1"), ("task_2", "worker-2"), ("task_4", "worker-3")]
    assert ledger_violations(rec.events, 4) == []


def test_an_empty_plan_completes_at_once():
    report = PlanExecutor(Plan([]), complete, goal="g").run(threading.Event())
    assert report.status is PlanStatus.COMPLETED


# --- task context (P-4.5) ----------------------------------------------------------


def test_task_message_has_goal_task_and_direct_dependencies_only():
    plan = Plan(
        [
            Task("task_1", "read the README", TaskType.FILE_READ, status=TaskStatus.COMPLETED, result="INDIRECT RESULT"),
            Task("task_2", "list modules", TaskType.FILE_READ, ["task_1"], status=TaskStatus.COMPLETED,
                 result="line one\nline two\n" + "x" * 3000),
            Task("task_3", "unrelated", status=TaskStatus.COMPLETED, result="UNRELATED RESULT"),
            Task("task_4", "write the overview", TaskType.FILE_WRITE, ["task_2"]),
        ]
    )
    text = task_message("Document the project", plan, plan.task("task_4"))
    assert text.startswith("Goal: Document the project\n")
    assert "Current task: task_4 (type FILE_WRITE)\nwrite the overview" in text
    assert "- task_2 [COMPLETED]: list modules" in text
    assert "line one\nline two\n" + "x" * 3000 in text, "the full result, never cut"
    assert "INDIRECT RESULT" not in text and "read the README" not in text
    assert "UNRELATED" not in text and "unrelated" not in text


def test_task_message_without_dependencies_says_none():
    plan = plan_of(("task_1", []))
    assert task_message("g", plan, plan.task("task_1")).endswith("Dependencies: none")


# --- summary (P-5.10) ------------------------------------------------------------------


def test_summary_lists_completed_first_then_failures_blocked_skips():
    plan = Plan(
        [
            Task("task_1", "fails", status=TaskStatus.FAILED, error="exit 2", result="partial output"),
            Task("task_2", "skipped", dependencies=["task_1"], status=TaskStatus.SKIPPED, error="dependency task_1 failed"),
            Task("task_3", "works", status=TaskStatus.COMPLETED, result="r" * 200),
            Task("task_4", "blocked", status=TaskStatus.BLOCKED, error="no credentials"),
        ]
    )
    lines = summarize(plan, PlanStatus.FAILED).splitlines()
    assert lines[0] == "Plan FAILED: 4 tasks — 1 completed, 1 failed, 1 blocked, 1 skipped"
    assert lines[1] == "✅ task_3: works — " + "r" * 120 + "…"
    assert lines[2] == "❌ task_1: fails — failed: exit 2 (last result: partial output)"
    assert lines[3] == "⛔ task_4: blocked — blocked: no credentials"
    assert lines[4] == "⏭️ task_2: skipped — skipped: dependency task_1 failed"


def test_summary_preview_is_one_line_and_exact_at_the_limit():
    plan = Plan([Task("task_1", "a", status=TaskStatus.COMPLETED, result="a\nb " + "c" * 116)])
    assert summarize(plan, PlanStatus.COMPLETED).splitlines()[1] == "✅ task_1: a — a b " + "c" * 116
    plan.task("task_1").result += "d"
    assert summarize(plan, PlanStatus.COMPLETED).splitlines()[1] == "✅ task_1: a — a b " + "c" * 116 + "…"


def test_team_summary_speaks_of_steps():
    from paicli_tui.plan.model import Plan, PlanStatus, Task, TaskStatus
    from paicli_tui.plan.summary import summarize

    plan = Plan([Task("step_1", "a", status=TaskStatus.COMPLETED, result="ok")])
    assert summarize(plan, PlanStatus.COMPLETED).splitlines()[0] == "Team run COMPLETED: 1 step — 1 completed"


def test_the_run_answer_is_the_full_result_of_the_plans_ends():
    long_answer = "## Findings\n\n" + "every word of the conclusion matters " * 40
    plan = plan_of(("task_1", []), ("task_2", ["task_1"]))

    def runner(task, plan, worker, cancel):
        return TaskOutcome("completed", result=long_answer if task.id == "task_2" else "notes")

    rec = Recorder(plan)
    report = PlanExecutor(plan, runner, goal="g", bus=rec.bus).run(threading.Event())
    (finished,) = rec.names("run_finished")
    assert finished.answer == report.answer == long_answer.strip()
    assert "…" in finished.summary  # the summary's preview of task_2 is cut; the answer is not


def test_several_ends_are_each_headed_and_a_failed_end_gives_no_answer():
    plan = plan_of(("task_1", []), ("task_2", []), ("task_3", []))

    def runner(task, plan, worker, cancel):
        if task.id == "task_3":
            return TaskOutcome("failed", error="boom")
        return TaskOutcome("completed", result=f"all of {task.id}")

    report = PlanExecutor(plan, runner, goal="g", bus=Recorder(plan).bus).run(threading.Event())
    assert report.answer == "**task_1: do task_1**\n\nall of task_1\n\n**task_2: do task_2**\n\nall of task_2"
