"""One run folded from its events: tasks, attempts, workers, verdicts, tokens
and times. The run screen wraps it with pane routing (``ui/run/run_model``);
the report folds a ledger through it (``records/run_record``), so the screen
and ``paicli report`` cannot disagree about what happened.

Model calls are charged to the task the calling agent serves while it serves
it: in /plan an agent is named after its task, in /team a worker serves the
step it was dispatched to and a reviewer the step whose review it started.
Once the task ends nothing more is charged to it; calls outside any task
(planner, react) count for the run only.

Times are the engine's: every event carries the time it was published
(``Event.ts``), so a task's time is the difference of its dispatch and its
end, the same live, at the end and in a replay. ``now()`` is the clock while
a live run goes on, the latest recorded time in a replay, and the run's end
once it finished.

Each ``take`` notes what it changed in a ``RunChanges``, so a screen knows
what to repaint without comparing states.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from paicli_tui import events as ev
from paicli_tui.llm.types import Usage
from paicli_tui.plan.model import TERMINAL_STATUSES, dependents_of
from paicli_tui.records.run_views import AttemptView, TaskView, Verdict, WorkerView, tasks_from_plan

Clock = Callable[[], float]


@dataclass
class RunChanges:
    """What one or more events changed, for whoever repaints."""

    tasks: set[str] = field(default_factory=set)
    workers: set[str] = field(default_factory=set)
    new_workers: list[str] = field(default_factory=list)
    plan_replaced: bool = False
    finished: bool = False
    usage_changed: bool = False
    #: Something the timeline draws changed (an attempt began, ended or was reviewed).
    timeline_changed: bool = False


class RunFold:
    def __init__(
        self, tasks: Iterable[TaskView] = (), workers: Iterable[str] = (), *, clock: Clock = time.time,
        kind: str = "plan",
    ) -> None:
        self.clock = clock
        self.kind = kind
        #: A replay: ``now()`` is the latest recorded time, not the clock.
        self.replay = False
        self.tasks: dict[str, TaskView] = {}
        self.order: list[str] = []
        #: Every task of every plan version the run started, by (version, id).
        self.history: dict[tuple[int, str], TaskView] = {}
        self.workers: dict[str, WorkerView] = {name: WorkerView(name) for name in workers}
        #: Every attempt of the run in the order they began, earlier plan versions included.
        self.attempts: list[AttemptView] = []
        self.finished = False
        self.status = ""
        self.summary = ""
        self.notice = ""
        self.version = 0
        self.started_at: float | None = None
        self.finished_at: float | None = None
        self.latest_ts: float | None = None
        #: Tokens of the run's model calls seen by this fold (workers,
        #: reviewers, a replanner).
        self.usage = Usage()
        self._serving: dict[str, str] = {}  # agent actor → task it works for
        self._content: dict[str, str] = {}  # actor → content of its latest model reply
        self._set_tasks(list(tasks))

    def _set_tasks(self, tasks: list[TaskView]) -> None:
        self.tasks = {task.id: task for task in tasks}
        self.order = [task.id for task in tasks]
        self._serving = {actor: tid for actor, tid in self._serving.items() if tid in self.tasks}

    def _adopt(self, tasks: list[TaskView]) -> None:
        """A plan version starts running: its tasks are the run's tasks now."""
        for task in tasks:
            task.version = self.version
            self.history.setdefault((self.version, task.id), task)

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
        return dependents_of(task_id, self.task_list())

    def done_count(self) -> tuple[int, int]:
        """(completed tasks, all tasks)."""
        return sum(1 for t in self.tasks.values() if t.status == "COMPLETED"), len(self.tasks)

    def busy_workers(self) -> list[str]:
        return [name for name, view in self.workers.items() if self._running_step(view)]

    def _running_step(self, view: WorkerView) -> bool:
        """The worker's step was dispatched to it and has not ended."""
        task = self.tasks.get(view.step)
        return task is not None and task.status not in TERMINAL_STATUSES and task.worker == view.name

    def worker_showing(self, task_id: str) -> WorkerView | None:
        """The worker whose latest step is ``task_id``."""
        task = self.tasks.get(task_id)
        view = self.workers.get(task.worker) if task is not None else None
        return view if view is not None and view.step == task_id else None

    def task_of(self, actor: str) -> str:
        """The task ``actor`` works for now ("" when none)."""
        return self._serving.get(actor, "")

    def last_content(self, actor: str) -> str:
        return self._content.get(actor, "")

    def verdict_of(self, item: ev.ReviewVerdictGiven) -> Verdict:
        return Verdict(item.approved, item.actor, summary_of(self.last_content(item.actor)), item.feedback,
                       tuple(item.notes))

    def attempt(self, task_id: str, number: int) -> AttemptView | None:
        task = self.tasks.get(task_id)
        if task is None:
            return None
        return next((a for a in reversed(task.attempts) if a.number == number), None)

    # -- events ------------------------------------------------------------------

    def take(self, item: Any, changes: RunChanges) -> None:
        """Fold one event in, noting what changed in ``changes``."""
        ts = getattr(item, "ts", None)
        if ts is not None and (self.latest_ts is None or ts > self.latest_ts):
            self.latest_ts = ts
        match item:
            case ev.TaskDispatched():
                self._dispatched(item, changes)
            case ev.TaskStatusChanged():
                self._status(item, changes)
            case ev.ReviewStarted():
                self._review_started(item, changes)
            case ev.ReviewVerdictGiven():
                self._verdict(item, changes)
            case ev.StepRetry():
                self._retry(item, changes)
            case ev.WorkerReportParsed():
                attempt = self.attempt(item.step_id, item.attempt)
                if attempt is not None:
                    attempt.report = (item.status, item.result, item.reason)
                    changes.tasks.add(item.step_id)
            case ev.ModelResponse():
                self._response(item, changes)
            case ev.RunStarted():
                self._started(item, changes)
            case ev.RunResumed():
                self._resumed(item, changes)
            case ev.PlanProposed() if item.origin == "replan":
                self.version = item.version
                self._set_tasks(tasks_from_plan(item.plan))
                self._adopt(self.task_list())
                changes.plan_replaced = True
            case ev.ReplanTriggered():
                self.notice = f"replanning after {item.failed_task} failed: {item.reason}"
            case ev.RunFinished():
                self._run_finished(item, changes)
            case ev.CheckRan() | ev.ReceiptsSent() if item.task_id in self.tasks:
                attempt = self.attempt(item.task_id, item.attempt)
                if attempt is not None:
                    if isinstance(item, ev.CheckRan):
                        attempt.check = item
                    else:
                        attempt.receipts = item
                    changes.tasks.add(item.task_id)
            case ev.TaskCommitted() | ev.TaskMerged() | ev.MergeConflict() if item.task_id in self.tasks:
                self._isolation(self.tasks[item.task_id], item)
                changes.tasks.add(item.task_id)
                changes.timeline_changed = True

    @staticmethod
    def _isolation(task: TaskView, item: Any) -> None:
        if isinstance(item, ev.TaskCommitted):
            task.changed = (item.files, item.added, item.removed)
            task.base_commit, task.result_commit = item.base, item.result
        elif isinstance(item, ev.TaskMerged):
            task.merged, task.resolved = True, item.resolved
        else:
            task.conflicts += 1
            task.conflict_files = tuple(item.files)

    def _ts(self, item: Any) -> float:
        ts = getattr(item, "ts", None)
        return ts if ts is not None else self.clock()

    def _task(self, task_id: str) -> TaskView | None:
        """The task an event names; None for an id the plan does not have."""
        return self.tasks.get(task_id)

    def cost(self, response: ev.ModelResponse) -> float:
        """What ``response`` cost; the fold knows no prices."""
        return 0.0

    def _response(self, item: ev.ModelResponse, changes: RunChanges) -> None:
        self._content[item.actor] = item.content
        self.usage = self.usage + Usage.of_response(item)
        changes.usage_changed = True
        task = self.tasks.get(self.task_of(item.actor))
        if task is not None:
            spent = item.prompt_tokens + item.completion_tokens
            task.tokens += spent
            task.spent.add(item, self.cost(item))
            if task.attempts:
                task.attempts[-1].tokens += spent
            changes.tasks.add(task.id)

    def _started(self, item: ev.RunStarted, changes: RunChanges) -> None:
        """The executor starts the plan it actually runs: adopt it when it
        differs from the one the fold began with."""
        self.version = item.version
        if self.started_at is None:
            self.started_at = self._ts(item)
        tasks = tasks_from_plan(item.plan)

        def shape(views: Iterable[TaskView]) -> list[tuple]:
            return [(t.id, t.description, t.type, t.dependencies) for t in views]

        if tasks and shape(tasks) != shape(self.task_list()):
            self._set_tasks(tasks)
            changes.plan_replaced = True
        self._adopt(self.task_list())

    def _resumed(self, item: ev.RunResumed, changes: RunChanges) -> None:
        """An interrupted run goes on: the plan it goes on with (edited
        first, perhaps), what it kept finished, the rest to run again."""
        self.version = item.version
        self.finished, self.finished_at = False, None
        before = dict(self.tasks)
        tasks = tasks_from_plan(item.plan)
        if tasks and [t.id for t in tasks] != self.order or any(
                (t.description, t.dependencies) != (before[t.id].description, before[t.id].dependencies)
                for t in tasks if t.id in before):
            self._set_tasks(tasks)
            changes.plan_replaced = True
        for task in self.task_list():
            status = item.statuses.get(task.id, "PENDING")
            if status == "PENDING" or task.id not in before:
                task.status = status
            elif task is not before[task.id]:
                task.status, task.result = status, before[task.id].result
            changes.tasks.add(task.id)
        self._adopt(self.task_list())

    def _dispatched(self, item: ev.TaskDispatched, changes: RunChanges) -> None:
        worker, at = item.worker, self._ts(item)
        if self.started_at is None:
            self.started_at = at
        if worker not in self.workers:
            self.workers[worker] = WorkerView(worker)
            changes.new_workers.append(worker)
        task = self._task(item.task_id)
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
            # /plan: the agent is named after the task; /team: after the worker.
            for actor in (item.task_id, worker):
                self._serving[actor] = task.id
            changes.tasks.add(task.id)
            changes.timeline_changed = True
        view = self.workers[worker]
        view.step, view.attempt, view.reviewing = item.task_id, item.attempt, False
        changes.workers.add(worker)

    def _status(self, item: ev.TaskStatusChanged, changes: RunChanges) -> None:
        task = self._task(item.task_id)
        if task is None:
            return
        at = self._ts(item)
        if "CONFLICT" in (item.status, task.status):  # its bar changes its look
            changes.timeline_changed = True
        task.status = item.status
        task.result, task.error = item.result or task.result, item.error
        if item.status == "RUNNING" and task.started is None:
            task.started = at
        if item.status in TERMINAL_STATUSES:
            task.finished = at
            self._serving = {actor: tid for actor, tid in self._serving.items() if tid != task.id}
            attempt = task.attempts[-1] if task.attempts else None
            if attempt is not None and attempt.ended is None:
                attempt.ended, attempt.outcome = at, task.outcome
                changes.timeline_changed = True
            view = self.worker_showing(task.id)
            if view is not None:
                view.reviewing = False
                changes.workers.add(view.name)
        changes.tasks.add(task.id)

    def _review_started(self, item: ev.ReviewStarted, changes: RunChanges) -> None:
        task = self._task(item.step_id)
        if task is None:
            return
        self._serving[item.actor] = task.id
        attempt = self.attempt(item.step_id, item.attempt)
        if attempt is not None:
            attempt.review_started, attempt.reviewer = self._ts(item), item.actor
            changes.timeline_changed = True
        if task.worker in self.workers:
            self.workers[task.worker].reviewing = True
            changes.workers.add(task.worker)

    def _verdict(self, item: ev.ReviewVerdictGiven, changes: RunChanges) -> None:
        verdict = self.verdict_of(item)
        attempt = self.attempt(item.step_id, item.attempt)
        if attempt is not None:
            attempt.verdict = verdict
            changes.tasks.add(item.step_id)
            changes.timeline_changed = True
        task = self.tasks.get(item.step_id)
        if task is None:
            return
        if item.approved:
            task.notes = list(item.notes)
        view = self.workers.get(task.worker)
        if view is not None and view.reviewing:
            view.reviewing = False
            changes.workers.add(view.name)

    def _retry(self, item: ev.StepRetry, changes: RunChanges) -> None:
        task = self.tasks.get(item.step_id)
        if task is not None:
            task.attempt = item.attempt
            changes.tasks.add(task.id)
        worker = self.worker_of(item.actor) or (task.worker if task is not None else "")
        if worker in self.workers:
            view = self.workers[worker]
            view.attempt, view.reviewing = item.attempt, False
            changes.workers.add(worker)

    def worker_of(self, actor: str) -> str:
        """The worker ``actor`` is, or works on behalf of ("" when none)."""
        if actor in self.workers:
            return actor
        task = self.tasks.get(self.task_of(actor))
        return task.worker if task is not None and task.worker in self.workers else ""

    def _run_finished(self, item: ev.RunFinished, changes: RunChanges) -> None:
        self.finished_at = self._ts(item)
        self.finished = True
        self.status = item.status
        self.summary = item.summary
        for attempt in self.attempts:  # nothing runs once the run ended
            if attempt.ended is None:
                attempt.ended, attempt.outcome = self.finished_at, "cancelled"
        changes.finished = changes.timeline_changed = True


def summary_of(raw: str) -> str:
    """The ``summary`` of a reviewer's JSON reply, for the verdict card (the
    event carries the feedback, which for a rejection is the issues)."""
    text = raw.strip()
    if text.startswith("```"):
        text = text.strip("`").split("\n", 1)[-1] if "\n" in text else ""
    try:
        value = json.loads(text)
    except ValueError:
        return ""
    summary = value.get("summary") if isinstance(value, dict) else None
    return summary.strip() if isinstance(summary, str) else ""
