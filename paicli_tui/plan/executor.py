"""Runs a plan's tasks on worker threads (P-3.4, P-4.6, P-4.7).

One coordinating loop (the thread that calls ``run``) owns every decision and
every plan status change; worker threads only run the task and hand back a
``TaskOutcome`` through a queue. Because all dispatch, status, replan and
finish events are published from that one loop, the ledger order is the order
of decisions, which is what lets `paicli verify` prove the scheduling rules.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Literal, Mapping, Sequence

from paicli_tui.events import (
    Event,
    EventBus,
    PlanProposed,
    ReplanTriggered,
    RunFinished,
    RunLimitReached,
    RunStarted,
    TaskDispatched,
    TaskStatusChanged,
)
from paicli_tui.llm.types import ModelCancelled
from paicli_tui.plan.model import Plan, PlanStatus, Task, TaskStatus
from paicli_tui.plan.scheduler import POLICIES, make_scheduler
from paicli_tui.plan.summary import counts, earlier_versions, summarize

REPLAN_BELOW_PROGRESS = 0.5
# How often the coordinating loop looks at the cancel flag while it waits.
_POLL_S = 0.05


@dataclass(frozen=True)
class TaskOutcome:
    """What a runner reports. A budget stop's partial result is "completed"
    (P-4.6: not a failure); a user cancel is "cancelled"."""

    status: Literal["completed", "failed", "blocked", "cancelled"]
    result: str = ""
    error: str = ""


TaskRunner = Callable[[Task, Plan, str, threading.Event], TaskOutcome]
Replanner = Callable[[Plan, Task, str], Plan]
#: Answers (limit kind, reason) once a per-run budget is used up, else None.
RunLimit = Callable[[], "tuple[str, str] | None"]


@dataclass
class ExecutionReport:
    plan: Plan
    status: PlanStatus
    replans: int
    history: list[Plan]
    summary: str
    error: str = ""


@dataclass
class _Slot:
    worker: str
    cancel: threading.Event = field(default_factory=threading.Event)


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return text or type(exc).__name__


class PlanExecutor:
    def __init__(
        self,
        plan: Plan,
        runner: TaskRunner,
        *,
        goal: str,
        bus: EventBus | None = None,
        policy: str = "ready",
        parallelism: int = 4,
        workers: Sequence[str] | None = None,
        replanner: Replanner | None = None,
        max_replans: int = 2,
        actor: str = "executor",
        version: int = 1,
        estimates: Mapping[str, float] | None = None,
        run_limit: RunLimit | None = None,
    ) -> None:
        """``version`` is the plan version being run (replans publish the
        next numbers); ``estimates`` are optional task durations that the
        ``ready`` policy uses to rank the first plan's critical path;
        ``run_limit`` stops new dispatches once a per-run budget is spent."""
        if parallelism < 1:
            raise ValueError(f"parallelism must be at least 1, got {parallelism}")
        names = list(workers) if workers else [f"worker-{i}" for i in range(1, parallelism + 1)]
        if len(set(names)) != len(names):
            raise ValueError(f"worker names must be unique: {names}")
        if policy not in POLICIES:
            raise ValueError(f"unknown schedule policy {policy!r}; expected one of: {', '.join(POLICIES)}")
        self._plan = plan
        self._runner = runner
        self._goal = goal
        self._bus = bus
        self._policy = policy
        self._workers = names
        self._limit = min(parallelism, len(names))
        self._replanner = replanner
        self._max_replans = max_replans
        self._actor = actor
        self._version = version
        self._estimates = estimates
        self._run_limit = run_limit
        self._stop_reason = ""
        self._running: dict[str, _Slot] = {}
        self._done: queue.Queue[tuple[str, TaskOutcome]] = queue.Queue()

    # --- public -----------------------------------------------------------

    def run(self, cancel: threading.Event) -> ExecutionReport:
        plan = self._plan
        history = [plan]
        replans = 0
        error = ""
        self._publish(
            RunStarted(self._actor, self._policy, self._limit, tuple(self._workers), self._max_replans,
                       self._version, plan.to_dict())
        )
        pool = ThreadPoolExecutor(max_workers=self._limit, thread_name_prefix="paicli-task")
        try:
            while True:
                plan.status = PlanStatus.RUNNING
                trigger = self._run_version(plan, pool, cancel, replans)
                if trigger is None or cancel.is_set() or self._replanner is None or self._stop_reason:
                    break
                try:
                    new_plan = self._replanner(plan, *trigger)
                    if not isinstance(new_plan, Plan) or not new_plan.tasks:
                        raise ValueError("the replanner returned no tasks")
                except Exception as exc:  # noqa: BLE001 — any replan failure ends the run
                    error = f"replan failed: {_describe(exc)}"
                    break
                if cancel.is_set():
                    break
                self._skip_pending(plan, "replaced by a replan")
                plan.status = PlanStatus.FAILED
                replans += 1
                self._version += 1
                new_plan.goal = new_plan.goal or self._goal
                self._publish(
                    PlanProposed(self._actor, self._version, "replan", self._goal, new_plan.to_dict())
                )
                plan = new_plan
                history.append(plan)
        finally:
            for slot in self._running.values():
                slot.cancel.set()
            pool.shutdown(wait=True, cancel_futures=True)
        if self._stop_reason and not error and any(t.status is not TaskStatus.COMPLETED for t in plan.tasks):
            error = f"stopped: {self._stop_reason}"
        return self._finish(plan, history, replans, error, cancel)

    def cancel_task(self, task_id: str) -> bool:
        """Ask one running task to stop; it ends SKIPPED and its dependents
        are skipped. Safe from any thread; False when the task is not running."""
        slot = self._running.get(task_id)
        if slot is None:
            return False
        slot.cancel.set()
        return True

    # --- the coordinating loop ---------------------------------------------

    def _run_version(
        self, plan: Plan, pool: ThreadPoolExecutor, cancel: threading.Event, replans: int
    ) -> tuple[Task, str] | None:
        """Run one plan version until nothing runs and nothing may start.
        Returns (failed task, reason) when a replan was triggered."""
        scheduler = make_scheduler(self._policy, plan, self._estimates if plan is self._plan else None)
        free = deque(self._workers)
        trigger: tuple[Task, str] | None = None
        while True:
            if cancel.is_set():
                for slot in self._running.values():
                    slot.cancel.set()
            elif trigger is None and not self._limit_reached(plan):
                room = min(len(free), self._limit - len(self._running))
                for task_id in scheduler.select(room):
                    self._dispatch(plan, task_id, free.popleft(), pool)
            if not self._running:
                return trigger
            for task_id, outcome in self._next_outcomes(cancel):
                free.append(self._running.pop(task_id).worker)
                task = plan.task(task_id)
                failed = self._settle(plan, task, outcome, cancel, replan_pending=trigger is not None)
                scheduler.finished(task_id)
                if failed and self._may_replan(plan, replans, cancel):
                    trigger = (task, task.error)
                    self._publish(ReplanTriggered(self._actor, task.id, task.error, replans + 1))
                elif failed:
                    self._skip_dependents(plan, task, "failed")

    def _limit_reached(self, plan: Plan) -> bool:
        """True once a per-run budget is spent (announced once), while tasks wait."""
        if self._stop_reason:
            return True
        if self._run_limit is None or not any(t.status is TaskStatus.PENDING for t in plan.tasks):
            return False
        hit = self._run_limit()
        if hit is None:
            return False
        kind, self._stop_reason = hit
        self._publish(RunLimitReached(self._actor, kind, self._stop_reason))
        return True

    def _dispatch(self, plan: Plan, task_id: str, worker: str, pool: ThreadPoolExecutor) -> None:
        task = plan.task(task_id)
        slot = _Slot(worker)
        self._publish(TaskDispatched(task_id, task_id, worker))
        task.status = TaskStatus.RUNNING
        self._publish(TaskStatusChanged(task_id, task_id, TaskStatus.RUNNING.value))
        self._running[task_id] = slot
        pool.submit(self._invoke, task, plan, worker, slot.cancel)

    def _invoke(self, task: Task, plan: Plan, worker: str, cancel: threading.Event) -> None:
        try:
            outcome = self._runner(task, plan, worker, cancel)
            if not isinstance(outcome, TaskOutcome):
                outcome = TaskOutcome("failed", error=f"the task runner returned {type(outcome).__name__}, not an outcome")
        except ModelCancelled:
            outcome = TaskOutcome("cancelled", error="cancelled")
        except BaseException as exc:  # noqa: BLE001 — the loop must hear about every ending
            outcome = TaskOutcome("failed", error=_describe(exc))
        self._done.put((task.id, outcome))

    def _next_outcomes(self, cancel: threading.Event) -> list[tuple[str, TaskOutcome]]:
        """Wait for at least one outcome (or a new cancel), then take all queued."""
        outcomes: list[tuple[str, TaskOutcome]] = []
        while not outcomes:
            try:
                outcomes.append(self._done.get(timeout=_POLL_S))
            except queue.Empty:
                if cancel.is_set() and any(not slot.cancel.is_set() for slot in self._running.values()):
                    return []
        while True:
            try:
                outcomes.append(self._done.get_nowait())
            except queue.Empty:
                return outcomes

    def _settle(
        self, plan: Plan, task: Task, outcome: TaskOutcome, cancel: threading.Event, *, replan_pending: bool
    ) -> bool:
        """Apply an outcome. Returns True for a failure that the caller must
        answer by replanning or by skipping the dependents (not while a replan
        is pending or the run is cancelled: then the rest is dropped anyway)."""
        task.result = outcome.result
        if outcome.status == "completed":
            self._set_status(task, TaskStatus.COMPLETED)
            return False
        if outcome.status == "blocked":
            task.error = outcome.error or "blocked"
            self._set_status(task, TaskStatus.BLOCKED)
            if not replan_pending:
                self._skip_dependents(plan, task, "blocked")
            return False
        if outcome.status == "cancelled":
            task.error = "cancelled"
            self._set_status(task, TaskStatus.SKIPPED)
            if not cancel.is_set() and not replan_pending:
                self._skip_dependents(plan, task, "was cancelled")
            return False
        task.error = outcome.error or "failed"
        self._set_status(task, TaskStatus.FAILED)
        if cancel.is_set() or replan_pending:
            return False
        return True

    def _may_replan(self, plan: Plan, replans: int, cancel: threading.Event) -> bool:
        return (
            self._replanner is not None
            and not cancel.is_set()
            and plan.progress() < REPLAN_BELOW_PROGRESS
            and replans < self._max_replans
        )

    # --- status bookkeeping --------------------------------------------------

    def _set_status(self, task: Task, status: TaskStatus) -> None:
        task.status = status
        result = task.result if status in (TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.BLOCKED) else ""
        error = task.error if status is not TaskStatus.COMPLETED else ""
        self._publish(TaskStatusChanged(task.id, task.id, status.value, result, error))

    def _skip_dependents(self, plan: Plan, task: Task, how: str) -> None:
        for child_id in plan.transitive_dependents(task.id):
            child = plan.task(child_id)
            if child.status is TaskStatus.PENDING:
                child.error = f"dependency {task.id} {how}"
                self._set_status(child, TaskStatus.SKIPPED)

    def _skip_pending(self, plan: Plan, reason: str) -> None:
        for task_id in plan.topological_order():
            task = plan.task(task_id)
            if task.status is TaskStatus.PENDING:
                task.error = reason
                self._set_status(task, TaskStatus.SKIPPED)

    def _finish(
        self, plan: Plan, history: list[Plan], replans: int, error: str, cancel: threading.Event
    ) -> ExecutionReport:
        all_done = all(task.status is TaskStatus.COMPLETED for task in plan.tasks)
        if cancel.is_set() and not all_done:
            status = PlanStatus.CANCELLED
            self._skip_pending(plan, "cancelled")
        else:
            self._skip_pending(plan, "replan failed" if error else "not run")
            status = PlanStatus.COMPLETED if all_done and not error else PlanStatus.FAILED
        plan.status = status
        text = summarize(plan, status, replans=replans, note=error)
        if len(history) > 1:
            text += "\n" + earlier_versions(history[:-1])
        self._publish(RunFinished(self._actor, status.value, text, counts(plan)))
        return ExecutionReport(plan, status, replans, history, text.rstrip(), error)

    def _publish(self, event: Event) -> None:
        if self._bus is not None:
            self._bus.publish(event)
