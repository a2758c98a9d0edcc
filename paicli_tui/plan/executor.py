"""Runs a plan's tasks on worker threads (P-3.4, P-4.6, P-4.7).

Every decision (settle an outcome, trigger a replan, skip dependents, dispatch)
is taken under one lock and publishes its events while holding it, so the
ledger order is the order of decisions, which is what lets `paicli verify`
prove the scheduling rules.

A worker that finishes a task takes the decision step itself, and when that
step dispatches a task, the first one goes to this same worker, which runs it
at once on the same thread; only the tasks it hands to idle workers start new
threads, and a worker's thread ends when it has nothing to run. Handing every
outcome to a coordinating thread and every dispatch back to a pool thread cost
two thread wake-ups per task: about 0.7 ms per dependency hand-off on the
critical path, and more than the model call itself per task at parallelism 1
(bench/schedule.py). The thread that called ``run`` starts each plan
version, forwards a run cancel to the running tasks, asks for replans and
publishes the finish.
"""

from __future__ import annotations

import threading
import time
from collections import deque
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
from paicli_tui.plan.outcome import NOT_STARTED_ERROR
from paicli_tui.plan.scheduler import POLICIES, Scheduler, make_scheduler
from paicli_tui.plan.summary import counts, earlier_versions, final_answer, summarize

REPLAN_BELOW_PROGRESS = 0.5
# How often the thread that called ``run`` looks at the cancel flag while it waits.
_POLL_S = 0.05
# Times a worker yields the GIL before it blocks on the decision lock (see _acquire).
_YIELDS = 10


@dataclass(frozen=True)
class TaskOutcome:
    """What a runner reports. A budget stop's partial result is "completed"
    (P-4.6: not a failure); a user cancel is "cancelled"."""

    status: Literal["completed", "failed", "blocked", "cancelled"]
    result: str = ""
    error: str = ""
    #: The approving reviewer's notes on a completed team step (P-5.6).
    notes: tuple[str, ...] = ()


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
    #: The run's answer in full (summary.final_answer), "" when none completed.
    answer: str = ""


@dataclass
class _Slot:
    """A running task: the worker running it and the task's own cancel flag."""

    worker: str
    cancel: threading.Event = field(default_factory=threading.Event)


@dataclass
class _Job:
    task: Task
    plan: Plan
    slot: _Slot


@dataclass
class _Version:
    """The state the decision steps of one plan version share."""

    plan: Plan
    scheduler: Scheduler
    free: deque[str]
    cancel: threading.Event
    replans: int
    trigger: tuple[Task, str] | None = None


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
        kind: str = "plan",
        version: int = 1,
        estimates: Mapping[str, float] | None = None,
        run_limit: RunLimit | None = None,
        replans: int = 0,
        resumed: bool = False,
    ) -> None:
        """``version`` is the plan version being run (replans publish the
        next numbers); ``estimates`` are optional task durations that the
        ``ready`` policy uses to rank the first plan's critical path;
        ``run_limit`` stops new dispatches once a per-run budget is spent.
        ``resumed``: the plan goes on from an interrupted run (its tasks'
        statuses as they were kept, ``replans`` already made); the run was
        announced then, so no ``run_started`` is published again."""
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
        self._kind = kind
        self._version = version
        self._estimates = estimates
        self._run_limit = run_limit
        self._replans = replans
        self._resumed = resumed
        self._stop_reason = ""
        # Guards everything below, the plan statuses and every event the
        # executor publishes (see the module docstring).
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)  # nothing runs any more
        self._threads: list[threading.Thread] = []
        self._running: dict[str, _Slot] = {}
        self._state: _Version | None = None
        self._closed = False
        self._failure: BaseException | None = None

    # --- public -----------------------------------------------------------

    def run(self, cancel: threading.Event) -> ExecutionReport:
        plan = self._plan
        history = [plan]
        replans = self._replans
        error = ""
        if self._resumed:
            with self._lock:
                for task in list(plan.tasks):
                    if task.status in (TaskStatus.FAILED, TaskStatus.BLOCKED):
                        self._skip_dependents(plan, task, task.status.value.lower())
        else:
            self._publish(
                RunStarted(self._actor, self._policy, self._limit, tuple(self._workers), self._max_replans,
                           self._version, plan.to_dict(), self._kind)
            )
        try:
            while True:
                plan.status = PlanStatus.RUNNING
                trigger = self._run_version(plan, cancel, replans)
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
            with self._lock:
                self._closed = True
                self._cancel_running()
            # No thread starts once closed, so this list is final.
            for thread in self._threads:
                thread.join()
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

    def hold(self, task_id: str, status: str) -> None:
        """A running task's runner marks it CONFLICT while a merge conflict
        waits for a decision, and RUNNING again when it re-runs. Taken under
        the decision lock so the ledger keeps the order of decisions; a task
        that is not running (or already so marked) is left alone."""
        target = TaskStatus(status)
        if target not in (TaskStatus.CONFLICT, TaskStatus.RUNNING):
            raise ValueError(f"a runner may only hold a task as CONFLICT or RUNNING, not {status}")
        with self._lock:
            state = self._state
            if state is None or task_id not in self._running:
                return
            task = state.plan.task(task_id)
            if task.status is not target:
                task.status = target
                self._publish(TaskStatusChanged(task_id, task_id, target.value))

    # --- the thread that called run ------------------------------------------

    def _run_version(self, plan: Plan, cancel: threading.Event, replans: int) -> tuple[Task, str] | None:
        """Run one plan version until nothing runs and nothing may start.
        Returns (failed task, reason) when a replan was triggered."""
        scheduler = make_scheduler(self._policy, plan, self._estimates if plan is self._plan else None)
        with self._lock:
            state = self._state = _Version(plan, scheduler, deque(self._workers), cancel, replans)
            for job in self._dispatch_ready(state):
                self._hand_over(job)
            while self._running and self._failure is None:
                if cancel.is_set():
                    self._cancel_running()
                self._idle.wait(_POLL_S)
            if self._failure is not None:
                raise self._failure
            return state.trigger

    # --- worker threads ----------------------------------------------------------

    def _work(self, job: _Job) -> None:
        """A worker thread: run ``job``, take its decision step, and go
        straight on with the job that step gave the same worker. The thread
        ends when there is none; a later hand-over starts a new one."""
        try:
            while job is not None:
                outcome = self._invoke(job.task, job.plan, job.slot.worker, job.slot.cancel)
                self._acquire()
                try:
                    job = self._after(job, outcome)
                finally:
                    self._lock.release()
        except BaseException as exc:  # noqa: BLE001 — the thread that called run re-raises it
            with self._lock:
                self._failure = self._failure or exc
                self._cancel_running()
                self._idle.notify()

    def _acquire(self) -> None:
        """Take the decision lock. A blocked acquire hands the lock, once
        freed, to a thread that must then wait for the GIL while holding it,
        and with several CPU-bound workers each decision step then queues
        behind such a thread: a convoy, 0.66 ms per task instead of 0.44
        ms at parallelism 4 with a zero-delay model (bench/schedule.py,
        interleaved). Yielding the GIL a few times first lets a holder that
        was pre-empted finish; a holder blocked in I/O (the ledger's fsync)
        is then waited for the ordinary way."""
        for _ in range(_YIELDS):
            if self._lock.acquire(blocking=False):
                return
            time.sleep(0)
        self._lock.acquire()

    def _after(self, job: _Job, outcome: TaskOutcome) -> _Job | None:
        """The decision step for a finished job (caller holds the lock).
        Returns the next job for the same worker, if one was dispatched."""
        state = self._state
        if self._closed or state is None or state.plan is not job.plan:
            return None
        plan, task, worker = state.plan, job.task, job.slot.worker
        del self._running[task.id]
        # The worker that just finished is first in line for what its task
        # released: it is awake already.
        state.free.appendleft(worker)
        failed = self._settle(plan, task, outcome, state.cancel, replan_pending=state.trigger is not None)
        state.scheduler.finished(task.id)
        if failed and self._may_replan(plan, state.replans, state.cancel):
            state.trigger = (task, task.error)
            self._publish(ReplanTriggered(self._actor, task.id, task.error, state.replans + 1))
        elif failed:
            self._skip_dependents(plan, task, "failed")
        own: _Job | None = None
        for started in self._dispatch_ready(state):
            if started.slot.worker == worker:
                own = started
            else:
                self._hand_over(started)
        if not self._running:
            self._idle.notify()
        return own

    def _hand_over(self, job: _Job) -> None:
        """Start a thread for a job whose worker is idle (caller holds the
        lock, so the run cannot close meanwhile). Idle workers hold no
        thread: a run starts only the threads it uses, and at its end has no
        parked ones to wake and join: against threads parked for the whole
        run, 0.9 ms less before the first task starts and 0.4 ms less after
        the last one ends, per bench plan."""
        thread = threading.Thread(target=self._work, args=(job,), name=f"paicli-task-{job.slot.worker}", daemon=True)
        self._threads.append(thread)
        thread.start()

    # --- decisions (the caller holds the lock) ------------------------------------

    def _dispatch_ready(self, state: _Version) -> list[_Job]:
        """Dispatch what may start now: nothing after a cancel, a replan
        trigger or a spent budget."""
        if state.cancel.is_set():
            self._cancel_running()
            return []
        if state.trigger is not None or self._limit_reached(state.plan):
            return []
        room = min(len(state.free), self._limit - len(self._running))
        return [self._dispatch(state.plan, task_id, state.free.popleft()) for task_id in state.scheduler.select(room)]

    def _cancel_running(self) -> None:
        for slot in self._running.values():
            slot.cancel.set()

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

    def _dispatch(self, plan: Plan, task_id: str, worker: str) -> _Job:
        task = plan.task(task_id)
        slot = _Slot(worker)
        self._publish(TaskDispatched(task_id, task_id, worker))
        task.status = TaskStatus.RUNNING
        self._publish(TaskStatusChanged(task_id, task_id, TaskStatus.RUNNING.value))
        self._running[task_id] = slot
        return _Job(task, plan, slot)

    def _invoke(self, task: Task, plan: Plan, worker: str, cancel: threading.Event) -> TaskOutcome:
        try:
            outcome = self._runner(task, plan, worker, cancel)
            if not isinstance(outcome, TaskOutcome):
                outcome = TaskOutcome("failed", error=f"the task runner returned {type(outcome).__name__}, not an outcome")
        except ModelCancelled:
            outcome = TaskOutcome("cancelled", error="cancelled")
        except BaseException as exc:  # noqa: BLE001 — the decision step must hear about every ending
            outcome = TaskOutcome("failed", error=_describe(exc))
        return outcome

    def _settle(
        self, plan: Plan, task: Task, outcome: TaskOutcome, cancel: threading.Event, *, replan_pending: bool
    ) -> bool:
        """Apply an outcome. Returns True for a failure that the caller must
        answer by replanning or by skipping the dependents (not while a replan
        is pending or the run is cancelled: then the rest is dropped anyway)."""
        task.result = outcome.result
        task.notes = list(outcome.notes)
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
            self._skip_pending(plan, NOT_STARTED_ERROR)
        else:
            self._skip_pending(plan, "replan failed" if error else "not run")
            status = PlanStatus.COMPLETED if all_done and not error else PlanStatus.FAILED
        plan.status = status
        text = summarize(plan, status, replans=replans, note=error)
        if len(history) > 1:
            text += "\n" + earlier_versions(history[:-1])
        answer = final_answer(plan)
        self._publish(RunFinished(self._actor, status.value, text, counts(plan), answer))
        return ExecutionReport(plan, status, replans, history, text.rstrip(), error, answer)

    def _publish(self, event: Event) -> None:
        if self._bus is not None:
            self._bus.publish(event)
