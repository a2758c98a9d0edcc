"""Isolation under the real plan executor: dependencies see merged work,
parallel tasks land, a conflict is a held CONFLICT status the ledger sees in
decision order, and --on-conflict rerun|drop|fail settle it."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from paicli_tui.events import ConflictDecided, EventBus, TaskMerged, TaskStatusChanged
from paicli_tui.plan.executor import PlanExecutor, TaskOutcome
from paicli_tui.plan.model import Plan, PlanStatus, Task, TaskStatus
from paicli_tui.workspace import IsolatedRun
from paicli_tui.workspace.apply import apply_run
from paicli_tui.workspace.resolver import HeadlessResolver, TaskIsolation
from tests.support.gitrepo import CALC, make_git_workspace

pytestmark = pytest.mark.timeout(120)


class Harness:
    """A plan run whose tasks are Python functions given their tree."""

    def __init__(self, tmp_path: Path, on_conflict: str = "rerun") -> None:
        self.workspace = make_git_workspace(tmp_path / "ws")
        self.bus = EventBus("s", mode="plan")
        self.events: list = []
        self.bus.subscribe(self.events.append)
        self.run_ = IsolatedRun.begin_run(self.workspace, "plan-run", tmp_path / "isolation", bus=self.bus)
        self.isolation = TaskIsolation(self.run_, HeadlessResolver(on_conflict))
        self.seen: dict[str, list[str]] = {}

    def execute(self, plan: Plan, actions: dict, parallelism: int = 2):
        def run_task(task: Task, plan: Plan, worker: str, cancel: threading.Event) -> TaskOutcome:
            feedback = ""
            while True:
                attempt = self.isolation.attempt(task.id, worker)
                self.seen.setdefault(task.id, []).append(
                    "|".join(sorted(p.name for p in attempt.path.iterdir())))
                actions[task.id](attempt.path, feedback)
                settled = self.isolation.settle(attempt, task.description, cancel)
                if settled.status == "rerun":
                    feedback = settled.feedback
                    continue
                if settled.status == "failed":
                    return TaskOutcome("failed", error=settled.error)
                return TaskOutcome("completed", settled.status)

        executor = PlanExecutor(plan, run_task, goal="g", bus=self.bus, parallelism=parallelism)
        self.isolation.hold = executor.hold
        report = executor.run(threading.Event())
        apply_run(self.run_, "tree")
        self.run_.close()
        return report

    def statuses(self, task_id: str) -> list[str]:
        return [e.status for e in self.events if isinstance(e, TaskStatusChanged) and e.task_id == task_id]


def write(name: str, text: str, wait: float = 0.0):
    def action(path: Path, feedback: str) -> None:
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
        time.sleep(wait)
    return action


def test_a_dependent_sees_its_dependencies_merged_work_and_parallel_tasks_both_land(tmp_path):
    h = Harness(tmp_path)
    plan = Plan([Task("task_1", "a"), Task("task_2", "b"), Task("task_3", "c", dependencies=["task_1", "task_2"])])

    def check(path: Path, feedback: str) -> None:
        assert (path / "a.txt").read_text() == "A" and (path / "b.txt").read_text() == "B"
        (path / "c.txt").write_text("C")

    both = threading.Barrier(2, timeout=30)  # both trees exist before either task writes

    def parallel(name: str, text: str):
        def action(path: Path, feedback: str) -> None:
            both.wait()
            write(name, text)(path, feedback)
        return action

    report = h.execute(plan, {"task_1": parallel("a.txt", "A"), "task_2": parallel("b.txt", "B"), "task_3": check})
    assert report.status is PlanStatus.COMPLETED, report.summary
    assert [(h.workspace / n).read_text() for n in ("a.txt", "b.txt", "c.txt")] == ["A", "B", "C"]
    # Neither parallel task saw the other's file while it ran.
    assert "b.txt" not in h.seen["task_1"][0] and "a.txt" not in h.seen["task_2"][0]


class Race:
    """task_1 and task_2 both start from the start state (a barrier after
    both trees exist), and task_2 ends only after task_1 is merged: the
    conflict is certain, whatever the machine's load."""

    def __init__(self, h: Harness) -> None:
        self.started = threading.Barrier(2, timeout=30)
        self.first_merged = threading.Event()
        h.bus.subscribe(lambda e: self.first_merged.set() if isinstance(e, TaskMerged) and e.task_id == "task_1" else None)

    def first(self, text: str):
        def action(path: Path, feedback: str) -> None:
            self.started.wait()
            (path / "src" / "calc.py").write_text(CALC.replace("a + b", text))
        return action

    def second(self, text: str):
        def action(path: Path, feedback: str) -> None:
            if not feedback:
                self.started.wait()
                assert self.first_merged.wait(30)
            (path / "src" / "calc.py").write_text(CALC.replace("a + b", text))
        return action


def conflicting_plan() -> Plan:
    return Plan([Task("task_1", "one"), Task("task_2", "two"), Task("task_3", "after two", dependencies=["task_2"])])


def test_rerun_puts_the_task_on_top_of_the_other_side(tmp_path):
    h = Harness(tmp_path, "rerun")
    race = Race(h)
    first_try = race.second("b + a")

    def second(path: Path, feedback: str) -> None:
        if not feedback:
            first_try(path, feedback)
        else:
            assert "<<<<<<< integration" in feedback and ">>>>>>> task_2" in feedback
            text = (path / "src" / "calc.py").read_text()
            (path / "src" / "calc.py").write_text(text.replace("a + b + 0", "b + a + 0"))

    report = h.execute(conflicting_plan(), {"task_1": race.first("a + b + 0"), "task_2": second,
                                            "task_3": write("c.txt", "C")})
    assert report.status is PlanStatus.COMPLETED, report.summary
    assert h.statuses("task_2") == ["RUNNING", "CONFLICT", "RUNNING", "COMPLETED"]
    assert "return b + a + 0" in (h.workspace / "src" / "calc.py").read_text()
    assert [e.choice for e in h.events if isinstance(e, ConflictDecided)] == ["rerun"]


def test_drop_completes_the_task_without_its_changes_and_dependents_run(tmp_path):
    h = Harness(tmp_path, "drop")
    race = Race(h)
    report = h.execute(conflicting_plan(), {"task_1": race.first("a + b + 0"), "task_2": race.second("b + a"),
                                            "task_3": write("c.txt", "C")})
    assert report.status is PlanStatus.COMPLETED
    assert h.statuses("task_2") == ["RUNNING", "CONFLICT", "COMPLETED"]
    assert "a + b + 0" in (h.workspace / "src" / "calc.py").read_text()
    assert (h.workspace / "c.txt").read_text() == "C"
    assert "task_2" not in [e.task_id for e in h.events if isinstance(e, TaskMerged)]


def test_fail_fails_the_task_and_skips_its_dependents(tmp_path):
    h = Harness(tmp_path, "fail")
    race = Race(h)
    report = h.execute(conflicting_plan(), {"task_1": race.first("a + b + 0"), "task_2": race.second("b + a"),
                                            "task_3": write("c.txt", "C")})
    assert report.plan.task("task_2").status is TaskStatus.FAILED
    assert "merge conflict in src/calc.py" in report.plan.task("task_2").error
    assert report.plan.task("task_3").status is TaskStatus.SKIPPED and not (h.workspace / "c.txt").exists()


def test_the_persons_edits_during_the_run_survive(tmp_path):
    h = Harness(tmp_path)

    def person_edits_meanwhile(path: Path, feedback: str) -> None:
        (h.workspace / "README.md").write_text("# calc\n\nedited during the run\n")
        (path / "src" / "calc.py").write_text(CALC + "\n# task\n")

    report = h.execute(Plan([Task("task_1", "a")]), {"task_1": person_edits_meanwhile})
    assert report.status is PlanStatus.COMPLETED
    assert (h.workspace / "README.md").read_text() == "# calc\n\nedited during the run\n"
    assert (h.workspace / "src" / "calc.py").read_text().endswith("# task\n")
