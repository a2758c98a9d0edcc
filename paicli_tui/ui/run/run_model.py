"""What the run screen shows, as plain data fed by engine events (P-7.3).

No Textual here: ``RunModel.apply`` takes one frame's drained items (events
and the pump's merged ``TextRun``s) and returns a ``FrameUpdate`` saying which
tasks and pane titles changed and what each worker pane must show (a list of
``pane_ops``) — so the screen writes each pane once per frame, and the
routing rules are tested without a terminal.

Routing: in /plan the agent of a task is named after the task (``task_3``)
and ``TaskDispatched`` names the worker slot; in /team the agent is the
worker itself (``worker-2``). A reviewer (``reviewer`` or
``reviewer-step_K``) writes into the pane of the worker that ran the step it
reviews, found through ``ReviewStarted`` and that step's latest dispatch.

Times are the engine's: every event carries the time it was published
(``Event.ts``), so a task's time is the difference of its dispatch and its
end, the same live, at the end and in a replay. ``now()`` is the clock while
a live run goes on, the latest recorded time in a replay, and the run's end
once it finished.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from paicli_tui import events as ev
from paicli_tui.llm.types import Usage
from paicli_tui.plan.model import Plan
from paicli_tui.ui.bridge.event_pump import TextRun
from paicli_tui.ui.run import pane_ops as ops
from paicli_tui.ui.run.pane_feed import PaneRouter
from paicli_tui.ui.run.task_views import AttemptView, TaskView, Verdict, WorkerView, tasks_from_entries, tasks_from_plan

__all__ = ["FrameUpdate", "RunModel", "TaskView", "AttemptView", "WorkerView", "tasks_from_entries", "tasks_from_plan"]

TERMINAL = frozenset({"COMPLETED", "FAILED", "SKIPPED", "BLOCKED"})

Clock = Callable[[], float]


@dataclass
class FrameUpdate:
    output: dict[str, list[ops.PaneOp]] = field(default_factory=dict)
    tasks: set[str] = field(default_factory=set)
    workers: set[str] = field(default_factory=set)
    new_workers: list[str] = field(default_factory=list)
    plan_replaced: bool = False
    finished: bool = False
    usage_changed: bool = False
    #: Something the timeline draws changed (an attempt began, ended or was reviewed).
    timeline_changed: bool = False


class RunModel:
    def __init__(
        self, tasks: list[TaskView], workers: Iterable[str], *, clock: Clock = time.time, kind: str = "plan"
    ) -> None:
        self.clock = clock
        self.kind = kind
        #: A replay: ``now()`` is the latest recorded time, not the clock.
        self.replay = False
        self.tasks: dict[str, TaskView] = {}
        self.order: list[str] = []
        self.workers: dict[str, WorkerView] = {name: WorkerView(name) for name in workers}
        #: Every attempt of the run in the order they began, earlier plan versions included.
        self.attempts: list[AttemptView] = []
        self.router = PaneRouter(self)
        self.finished = False
        self.status = ""
        self.summary = ""
        self.notice = ""
        self.version = 0
        self.started_at: float | None = None
        self.finished_at: float | None = None
        self.latest_ts: float | None = None
        #: Tokens of the run's model calls seen by this model (workers,
        #: reviewers, a replanner).
        self.usage = Usage()
        self._set_tasks(tasks)

    def _set_tasks(self, tasks: list[TaskView]) -> None:
        self.tasks = {task.id: task for task in tasks}
        self.order = [task.id for task in tasks]

    # -- queries -----------------------------------------------------------------

    def task_list(self) -> list[TaskView]:
        return [self.tasks[tid] for tid in self.order]

    def now(self) -> float:
        if self.finished and self.finished_at is not None:
            return self.finished_at
        if self.replay:
            return self.latest_ts if self.latest_ts is not None else self.clock()
        return self.clock()

    def elapsed(self) -> float:
        """Seconds since the run started (0 before it did)."""
        return max(0.0, self.now() - self.started_at) if self.started_at is not None else 0.0

    def dependents(self, task_id: str) -> list[str]:
        return [tid for tid in self.order if task_id in self.tasks[tid].dependencies]

    def done_count(self) -> tuple[int, int]:
        """(completed tasks, all tasks)."""
        return sum(1 for t in self.tasks.values() if t.status == "COMPLETED"), len(self.tasks)

    def busy_workers(self) -> list[str]:
        return [name for name, view in self.workers.items() if self._running_step(view)]

    def _running_step(self, view: WorkerView) -> bool:
        """The worker's step was dispatched to it and has not ended."""
        task = self.tasks.get(view.step)
        return task is not None and task.status not in TERMINAL and task.worker == view.name

    def pane_title(self, worker: str) -> str:
        view = self.workers[worker]
        if not view.step:
            return f"{worker} · idle"
        task = self.tasks.get(view.step)
        state = ""
        if view.reviewing:
            state = " · review"
        elif task is not None and task.status in TERMINAL:
            state = f" · {task.outcome}"
        return f"{worker} · {view.step} · attempt {max(view.attempt, 1)}{state}"

    # -- events ------------------------------------------------------------------

    def apply(self, items: Iterable[Any]) -> FrameUpdate:
        update = FrameUpdate()
        for item in items:
            if self.finished:  # what follows belongs to whatever runs next
                break
            ts = getattr(item, "ts", None)
            if ts is not None and (self.latest_ts is None or ts > self.latest_ts):
                self.latest_ts = ts
            self._apply_one(item, update)
        return update

    def _ts(self, item: Any) -> float:
        ts = getattr(item, "ts", None)
        return ts if ts is not None else self.clock()

    def _apply_one(self, item: Any, up: FrameUpdate) -> None:
        if isinstance(item, TextRun):
            self.router.stream(item.actor, item.call_id, item.kind, item.text, up)
            return
        match item:
            case ev.ModelDelta():
                self.router.stream(item.actor, item.call_id, item.kind, item.text, up)
            case ev.TaskDispatched():
                self._dispatched(item, up)
            case ev.TaskStatusChanged():
                self._status(item, up)
            case ev.ReviewStarted():
                attempt = self._attempt(item.step_id, item.attempt)
                if attempt is not None:
                    attempt.review_started, attempt.reviewer = self._ts(item), item.actor
                    up.timeline_changed = True
                self.router.review_started(item, up)
            case ev.ReviewVerdictGiven():
                self._verdict(item, up)
            case ev.StepRetry():
                self._retry(item, up)
            case ev.WorkerReportParsed():
                attempt = self._attempt(item.step_id, item.attempt)
                if attempt is not None:
                    attempt.report = (item.status, item.result, item.reason)
                    up.tasks.add(item.step_id)
                self.router.report(item, up)
            case ev.ModelResponse():
                self.usage = self.usage + Usage(item.prompt_tokens, item.completion_tokens, item.cached_tokens)
                up.usage_changed = True
                task_id = self.router.task_of(item.actor)
                if task_id in self.tasks:
                    spent = item.prompt_tokens + item.completion_tokens
                    task = self.tasks[task_id]
                    task.tokens += spent
                    if task.attempts:
                        task.attempts[-1].tokens += spent
                    up.tasks.add(task_id)
                self.router.response(item, up)
            case ev.RunStarted():
                self._started(item, up)
            case ev.PlanProposed() if item.origin == "replan":
                self._set_tasks(tasks_from_plan(item.plan))
                self.router.forget_missing_tasks()
                up.plan_replaced = True
            case ev.ReplanTriggered():
                self.notice = f"replanning after {item.failed_task} failed: {item.reason}"
            case ev.RunFinished():
                self.finished_at = self._ts(item)
                self.finished = True
                self.status = item.status
                self.summary = item.summary
                for attempt in self.attempts:  # nothing runs once the run ended
                    if attempt.ended is None:
                        attempt.ended, attempt.outcome = self.finished_at, "cancelled"
                up.finished = up.timeline_changed = True
            case _:
                self.router.other(item, up)

    def _attempt(self, task_id: str, number: int) -> AttemptView | None:
        task = self.tasks.get(task_id)
        if task is None:
            return None
        return next((a for a in reversed(task.attempts) if a.number == number), None)

    def _started(self, item: ev.RunStarted, up: FrameUpdate) -> None:
        """The executor starts the plan it actually runs: adopt it when it
        differs from the one the screen opened with."""
        self.version = item.version
        if self.started_at is None:
            self.started_at = self._ts(item)
        tasks = tasks_from_plan(item.plan)

        def shape(views: Iterable[TaskView]) -> list[tuple]:
            return [(t.id, t.description, t.type, t.dependencies) for t in views]

        if tasks and shape(tasks) != shape(self.task_list()):
            self._set_tasks(tasks)
            up.plan_replaced = True

    def _dispatched(self, item: ev.TaskDispatched, up: FrameUpdate) -> None:
        worker, at = item.worker, self._ts(item)
        if self.started_at is None:
            self.started_at = at
        if worker not in self.workers:
            self.workers[worker] = WorkerView(worker)
            up.new_workers.append(worker)
        task = self.tasks.get(item.task_id)
        if task is not None:
            task.worker, task.attempt = worker, item.attempt
            if task.started is None:
                task.started = at
            previous = task.attempts[-1] if task.attempts else None
            if previous is not None and previous.ended is None:
                previous.ended, previous.outcome = at, "rejected"
            attempt = AttemptView(task.id, item.attempt, worker, at, version=self.version)
            task.attempts.append(attempt)
            self.attempts.append(attempt)
            up.tasks.add(task.id)
            up.timeline_changed = True
        view = self.workers[worker]
        view.step, view.attempt, view.reviewing = item.task_id, item.attempt, False
        up.workers.add(worker)
        self.router.dispatched(item, task, up)

    def _status(self, item: ev.TaskStatusChanged, up: FrameUpdate) -> None:
        task = self.tasks.get(item.task_id)
        if task is None:
            return
        at = self._ts(item)
        task.status = item.status
        task.result, task.error = item.result or task.result, item.error
        if item.status == "RUNNING" and task.started is None:
            task.started = at
        if item.status in TERMINAL:
            if task.started is not None:
                task.finished = at
            attempt = task.attempts[-1] if task.attempts else None
            if attempt is not None and attempt.ended is None:
                attempt.ended, attempt.outcome = at, task.outcome
                up.timeline_changed = True
            view = self.workers.get(task.worker)
            if view is not None and view.step == task.id:
                view.reviewing = False
                up.workers.add(view.name)
                self.router.task_ended(view.name, task, up)
        up.tasks.add(task.id)

    def _verdict(self, item: ev.ReviewVerdictGiven, up: FrameUpdate) -> None:
        raw = self.router.last_content(item.actor)
        verdict = Verdict(item.approved, item.actor, summary_of(raw), item.feedback, tuple(item.notes))
        attempt = self._attempt(item.step_id, item.attempt)
        if attempt is not None:
            attempt.verdict = verdict
            up.tasks.add(item.step_id)
            up.timeline_changed = True
        task = self.tasks.get(item.step_id)
        if task is not None and item.approved:
            task.notes = list(item.notes)
        self.router.verdict(item, verdict, raw, up)

    def _retry(self, item: ev.StepRetry, up: FrameUpdate) -> None:
        task = self.tasks.get(item.step_id)
        if task is not None:
            task.attempt = item.attempt
            up.tasks.add(task.id)
        worker = self.router.pane_of(item.actor) or (task.worker if task is not None else "")
        if worker in self.workers:
            view = self.workers[worker]
            view.attempt, view.reviewing = item.attempt, False
            up.workers.add(worker)
        self.router.retried(worker, item, up)


def summary_of(raw: str) -> str:
    """The ``summary`` of a reviewer's JSON reply, for the verdict card (the
    event carries the feedback, which for a rejection is the issues)."""
    import json

    text = raw.strip()
    if text.startswith("```"):
        text = text.strip("`").split("\n", 1)[-1] if "\n" in text else ""
    try:
        value = json.loads(text)
    except ValueError:
        return ""
    summary = value.get("summary") if isinstance(value, dict) else None
    return summary.strip() if isinstance(summary, str) else ""
