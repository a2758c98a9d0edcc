"""What the run screen shows, as plain data fed by engine events (P-7.3).

No Textual here: ``RunModel.apply`` takes one frame's drained items (events
and the pump's merged ``TextRun``s) and returns a ``FrameUpdate`` saying which
tasks and pane titles changed and what text each worker pane must append —
so the screen writes each pane once per frame, and the routing rules are
tested without a terminal.

Routing: in /plan the agent of a task is named after the task (``task_3``)
and ``TaskDispatched`` names the worker slot; in /team the agent is the
worker itself (``worker-2``). A reviewer (``reviewer`` or
``reviewer-step_K``) writes into the pane of the worker that ran the step it
reviews, found through ``ReviewStarted`` and that step's latest dispatch.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from paicli_tui import events as ev
from paicli_tui.llm.types import Usage
from paicli_tui.plan.model import Plan
from paicli_tui.ui.bridge.event_lines import argument_subject
from paicli_tui.ui.bridge.event_pump import TextRun

TERMINAL = frozenset({"COMPLETED", "FAILED", "SKIPPED", "BLOCKED"})
#: Characters of a result or feedback shown in a pane line.
PANE_PREVIEW = 300

Clock = Callable[[], float]
Segment = tuple[str, str]  # (kind, text)


@dataclass
class TaskView:
    id: str
    description: str
    type: str = "ANALYSIS"
    dependencies: list[str] = field(default_factory=list)
    status: str = "PENDING"
    worker: str = ""
    attempt: int = 0
    started: float | None = None
    finished: float | None = None
    tokens: int = 0
    result: str = ""
    error: str = ""

    def elapsed(self, now: float) -> float | None:
        if self.started is None:
            return None
        return max(0.0, (self.finished if self.finished is not None else now) - self.started)


@dataclass
class WorkerView:
    name: str
    step: str = ""
    attempt: int = 0
    reviewing: bool = False


@dataclass
class FrameUpdate:
    output: dict[str, list[Segment]] = field(default_factory=dict)
    tasks: set[str] = field(default_factory=set)
    workers: set[str] = field(default_factory=set)
    new_workers: list[str] = field(default_factory=list)
    plan_replaced: bool = False
    finished: bool = False
    usage_changed: bool = False


def tasks_from_entries(entries: Iterable[Any]) -> list[TaskView]:
    """TaskViews from plan-dict entries; tolerant of the odd shapes an
    invalid hand-edited plan may have (the review tree shows those too)."""
    views = []
    for index, entry in enumerate(entries):
        entry = entry if isinstance(entry, dict) else {}
        raw_id = entry.get("id")
        deps = entry.get("dependencies")
        views.append(
            TaskView(
                id=raw_id if isinstance(raw_id, str) else f"#{index + 1}",
                description=entry.get("description") if isinstance(entry.get("description"), str) else "",
                type=str(entry.get("type") or "ANALYSIS").upper(),
                dependencies=[d for d in deps if isinstance(d, str)] if isinstance(deps, list) else [],
            )
        )
    return views


def tasks_from_plan(plan: Plan | dict) -> list[TaskView]:
    if isinstance(plan, Plan):
        return [
            TaskView(
                t.id, t.description, t.type.value, list(t.dependencies), t.status.value, result=t.result, error=t.error
            )
            for t in plan.tasks
        ]
    key = "steps" if isinstance(plan.get("steps"), list) and plan.get("steps") else "tasks"
    return tasks_from_entries(plan.get(key) or [])


def _preview(text: str, limit: int = PANE_PREVIEW) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + "…"


class RunModel:
    def __init__(self, tasks: list[TaskView], workers: Iterable[str], *, clock: Clock = time.monotonic) -> None:
        self.clock = clock
        self.tasks: dict[str, TaskView] = {}
        self.order: list[str] = []
        self.workers: dict[str, WorkerView] = {name: WorkerView(name) for name in workers}
        self._route: dict[str, str] = {}  # agent actor → worker pane
        self._task_of: dict[str, str] = {}  # agent actor → task it works on (tokens)
        self._open: dict[str, str | None] = {}  # worker → kind of its unfinished line
        self.finished = False
        self.status = ""
        self.summary = ""
        self.notice = ""
        self.version = 0
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

    def pane_title(self, worker: str) -> str:
        view = self.workers[worker]
        if not view.step:
            return f"{worker} · idle"
        task = self.tasks.get(view.step)
        state = ""
        if view.reviewing:
            state = " · review"
        elif task is not None and task.status in TERMINAL:
            state = f" · {task.status.lower()}"
        return f"{worker} · {view.step} · attempt {max(view.attempt, 1)}{state}"

    # -- events ------------------------------------------------------------------

    def apply(self, items: Iterable[Any]) -> FrameUpdate:
        update = FrameUpdate()
        for item in items:
            if self.finished:  # what follows belongs to whatever runs next
                break
            self._apply_one(item, update)
        return update

    def _apply_one(self, item: Any, up: FrameUpdate) -> None:
        if isinstance(item, TextRun):
            self._stream(item.actor, item.kind, item.text, up)
            return
        match item:
            case ev.ModelDelta():
                self._stream(item.actor, item.kind, item.text, up)
            case ev.TaskDispatched():
                self._dispatched(item, up)
            case ev.TaskStatusChanged():
                self._status(item, up)
            case ev.ReviewStarted():
                task = self.tasks.get(item.step_id)
                worker = task.worker if task is not None else ""
                if worker in self.workers:
                    self._route[item.actor] = worker
                    self._task_of[item.actor] = item.step_id
                    self.workers[worker].reviewing = True
                    up.workers.add(worker)
                    what = f"⚖ {item.actor} reviews {item.step_id} (attempt {item.attempt})"
                    self._line(worker, "review", what, up)
            case ev.ReviewVerdictGiven():
                worker = self._route.get(item.actor, "")
                if worker:
                    self.workers[worker].reviewing = False
                    up.workers.add(worker)
                    if item.approved:
                        self._line(worker, "approved", f"✓ approved by {item.actor}", up)
                        for note in item.notes:
                            self._line(worker, "warning", f"  note: {_preview(note, 160)}", up)
                    else:
                        self._line(worker, "rejected", f"✗ rejected by {item.actor}: {_preview(item.feedback)}", up)
            case ev.StepRetry():
                self._retry(item, up)
            case ev.WorkerReportParsed():
                worker = self._pane(item.actor)
                if worker:
                    detail = item.result if item.status == "completed" else item.reason or item.result
                    kind = {"completed": "report", "blocked": "warning"}.get(item.status, "error")
                    self._line(worker, kind, f"report ({item.status}): {_preview(detail)}", up)
            case ev.ToolCallStarted():
                if worker := self._pane(item.actor):
                    self._line(worker, "tool", f"→ {item.tool} {argument_subject(item.arguments)}".rstrip(), up)
            case ev.ToolCallFinished():
                if worker := self._pane(item.actor):
                    mark = "✓" if item.ok else "✗"
                    self._line(worker, "result" if item.ok else "error", f"  {mark} {_preview(item.summary, 120)}", up)
            case ev.ModelResponse():
                self.usage = self.usage + Usage(item.prompt_tokens, item.completion_tokens, item.cached_tokens)
                up.usage_changed = True
                task_id = self._task_of.get(item.actor)
                if task_id in self.tasks:
                    self.tasks[task_id].tokens += item.prompt_tokens + item.completion_tokens
                    up.tasks.add(task_id)
                if worker := self._pane(item.actor):
                    self._close_line(worker, up)
            case ev.ModelError():
                if worker := self._pane(item.actor):
                    self._line(worker, "error", f"✗ model call failed ({item.kind}): {item.message}", up)
            case ev.ModelRetry():
                if worker := self._pane(item.actor):
                    self._line(worker, "warning", f"↻ model retry {item.attempt}: {item.reason}", up)
            case ev.AgentNote():
                if worker := self._pane(item.actor):
                    self._line(worker, "warning", item.text, up)
            case ev.AgentFinished() if item.status != "final":
                if worker := self._pane(item.actor):
                    reason = f": {item.reason}" if item.reason else ""
                    self._line(worker, "warning", f"turn {item.status}{reason}", up)
            case ev.ApprovalRequested():
                if worker := self._pane(item.actor):
                    self._line(worker, "warning", f"? waiting for approval: {item.tool}", up)
            case ev.RunStarted():
                self._started(item, up)
            case ev.PlanProposed() if item.origin == "replan":
                self._set_tasks(tasks_from_plan(item.plan))
                self._task_of = {a: t for a, t in self._task_of.items() if t in self.tasks}
                up.plan_replaced = True
            case ev.ReplanTriggered():
                self.notice = f"replanning after {item.failed_task} failed: {item.reason}"
            case ev.RunFinished():
                self.finished = True
                self.status = item.status
                self.summary = item.summary
                up.finished = True

    def _started(self, item: ev.RunStarted, up: FrameUpdate) -> None:
        """The executor starts the plan it actually runs: adopt it when it
        differs from the one the screen opened with."""
        self.version = item.version
        tasks = tasks_from_plan(item.plan)

        def shape(views: Iterable[TaskView]) -> list[tuple]:
            return [(t.id, t.description, t.type, t.dependencies) for t in views]

        if tasks and shape(tasks) != shape(self.task_list()):
            self._set_tasks(tasks)
            up.plan_replaced = True

    def _dispatched(self, item: ev.TaskDispatched, up: FrameUpdate) -> None:
        worker = item.worker
        if worker not in self.workers:
            self.workers[worker] = WorkerView(worker)
            up.new_workers.append(worker)
        task = self.tasks.get(item.task_id)
        if task is not None:
            task.worker, task.attempt = worker, item.attempt
            if task.started is None:
                task.started = self.clock()
            up.tasks.add(task.id)
        view = self.workers[worker]
        view.step, view.attempt, view.reviewing = item.task_id, item.attempt, False
        up.workers.add(worker)
        # /plan: the agent is named after the task; /team: after the worker.
        for actor in (item.task_id, worker):
            self._route[actor] = worker
            self._task_of[actor] = item.task_id
        description = task.description if task is not None else ""
        self._line(worker, "header", f"▶ {item.task_id} · attempt {item.attempt} · {description}".rstrip(" ·"), up)

    def _status(self, item: ev.TaskStatusChanged, up: FrameUpdate) -> None:
        task = self.tasks.get(item.task_id)
        if task is None:
            return
        task.status = item.status
        task.result, task.error = item.result or task.result, item.error
        if item.status == "RUNNING" and task.started is None:
            task.started = self.clock()
        if item.status in TERMINAL:
            if task.started is not None:
                task.finished = self.clock()
            view = self.workers.get(task.worker)
            if view is not None and view.step == task.id:
                view.reviewing = False
                up.workers.add(view.name)
                detail = f": {_preview(item.error, 160)}" if item.error else ""
                kind = "approved" if item.status == "COMPLETED" else "error" if item.status == "FAILED" else "warning"
                self._line(view.name, kind, f"■ {task.id} {item.status.lower()}{detail}", up)
        up.tasks.add(task.id)

    def _retry(self, item: ev.StepRetry, up: FrameUpdate) -> None:
        task = self.tasks.get(item.step_id)
        worker = self._pane(item.actor) or (task.worker if task is not None else "")
        if task is not None:
            task.attempt = item.attempt
            up.tasks.add(task.id)
        if worker in self.workers:
            view = self.workers[worker]
            view.attempt, view.reviewing = item.attempt, False
            up.workers.add(worker)
            what = f"↻ retry {item.step_id} · attempt {item.attempt}: {_preview(item.feedback, 160)}"
            self._line(worker, "retry", what, up)

    # -- pane text ---------------------------------------------------------------

    def _pane(self, actor: str) -> str:
        worker = self._route.get(actor, "")
        if not worker and actor in self.workers:
            worker = actor
        return worker

    def _stream(self, actor: str, kind: str, text: str, up: FrameUpdate) -> None:
        worker = self._pane(actor)
        if not worker or not text or kind == "tool_call":  # ToolCallStarted shows the whole call
            return
        kind = "reasoning" if kind == "reasoning" else "content"
        out = up.output.setdefault(worker, [])
        if self._open.get(worker) not in (None, kind):
            out.append((self._open[worker], "\n"))
        out.append((kind, text))
        self._open[worker] = None if text.endswith("\n") else kind

    def _close_line(self, worker: str, up: FrameUpdate) -> None:
        kind = self._open.get(worker)
        if kind is not None:
            up.output.setdefault(worker, []).append((kind, "\n"))
            self._open[worker] = None

    def _line(self, worker: str, kind: str, text: str, up: FrameUpdate) -> None:
        self._close_line(worker, up)
        up.output.setdefault(worker, []).append((kind, text + "\n"))
