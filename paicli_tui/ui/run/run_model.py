"""What the run screen shows: the run's fold plus pane routing (P-7.3).

No Textual here: ``RunModel.apply`` takes one frame's drained items (events
and the pump's merged ``TextRun``s), folds them (``records/run_fold``) and
returns a ``FrameUpdate`` saying which tasks and pane titles changed and
what each worker pane must show (a list of ``pane_ops``) — so the screen
writes each pane once per frame, and the routing rules are tested without
a terminal.

Routing: in /plan the agent of a task is named after the task (``task_3``)
and ``TaskDispatched`` names the worker slot; in /team the agent is the
worker itself (``worker-2``). A reviewer (``reviewer`` or
``reviewer-step_K``) writes into the pane of the worker that ran the step it
reviews, found through ``ReviewStarted`` and that step's latest dispatch.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Iterable

from paicli_tui import events as ev
from paicli_tui.plan.model import TERMINAL_STATUSES
from paicli_tui.present.figures import format_cost
from paicli_tui.records.cost import cost_of
from paicli_tui.records.run_fold import Clock, RunChanges, RunFold
from paicli_tui.records.run_views import TaskView
from paicli_tui.ui.bridge.pump_items import TextRun
from paicli_tui.ui.run import pane_ops as ops
from paicli_tui.ui.run.pane_feed import PaneRouter


@dataclass
class FrameUpdate(RunChanges):
    """One frame's changes, plus what each worker pane must show."""

    output: dict[str, list[ops.PaneOp]] = field(default_factory=dict)


class RunModel(RunFold):
    def __init__(
        self, tasks: list[TaskView], workers: Iterable[str], *, clock: Clock = time.time, kind: str = "plan"
    ) -> None:
        super().__init__(tasks, workers, clock=clock, kind=kind)
        self.router = PaneRouter(self)
        #: The model's price and the money limits in force (run_requested's
        #: ``limits``): with a limit, pane titles and the heading show spent/limit.
        self.price: Any = None
        self.max_cost: float | None = None
        self.run_max_cost: float | None = None

    def cost(self, response: ev.ModelResponse) -> float:
        return cost_of(response, self.price)

    def budget_words(self, worker: str) -> str:
        """`` · $0.03/$0.50`` for the worker's task against the per-turn
        limit (else the run's); "" without a price or a limit."""
        limit = self.max_cost if self.max_cost is not None else self.run_max_cost
        task = self.tasks.get(self.workers[worker].step)
        if limit is None or self.price is None or task is None:
            return ""
        return f" · {format_cost(task.spent.cost)}/{format_cost(limit)}"

    def pane_title(self, worker: str) -> str:
        view = self.workers[worker]
        if not view.step:
            return f"{worker} · idle"
        task = self.tasks.get(view.step)
        state = ""
        if task is not None and task.status == "CONFLICT":
            # First, so a narrow pane's cut title still says it.
            return f"≠ CONFLICT · {worker} · {view.step}{self.budget_words(worker)} · attempt {max(view.attempt, 1)}"
        if view.reviewing:
            state = " · review"
        elif task is not None and task.status in TERMINAL_STATUSES:
            state = f" · {task.outcome}"
        # The money before the attempt: a narrow pane cuts the title's end.
        return f"{worker} · {view.step}{self.budget_words(worker)} · attempt {max(view.attempt, 1)}{state}"

    def in_conflict(self, worker: str) -> bool:
        """The worker's task waits on a merge conflict: its pane is marked."""
        task = self.tasks.get(self.workers[worker].step)
        return task is not None and task.status == "CONFLICT"

    def workers_on(self, task_ids: Iterable[str]) -> set[str]:
        """The workers showing one of ``task_ids`` (a status that is not
        final, such as CONFLICT, changes their pane's title too)."""
        wanted = set(task_ids)
        return {name for name, view in self.workers.items() if view.step in wanted}

    def apply(self, items: Iterable[Any]) -> FrameUpdate:
        update = FrameUpdate()
        for item in items:
            if self.finished:  # what follows belongs to whatever runs next
                break
            self._apply_one(item, update)
        return update

    def _apply_one(self, item: Any, up: FrameUpdate) -> None:
        self.take(item, up)
        # The router reads the fold's new state: a reviewer is routed to the
        # pane of the step's worker, a task's end is told where it ran.
        match item:
            case TextRun() | ev.ModelDelta():
                self.router.stream(item.actor, item.call_id, item.kind, item.text, up)
            case ev.TaskDispatched():
                self.router.dispatched(item, self.tasks.get(item.task_id), up)
            case ev.TaskStatusChanged():
                view = self.worker_showing(item.task_id) if item.status in TERMINAL_STATUSES else None
                if view is not None:
                    self.router.task_ended(view.name, self.tasks[item.task_id], up)
            case ev.ReviewStarted():
                self.router.review_started(item, up)
            case ev.ReviewVerdictGiven():
                self.router.verdict(item, self.verdict_of(item), self.last_content(item.actor), up)
            case ev.StepRetry():
                task = self.tasks.get(item.step_id)
                worker = self.router.pane_of(item.actor) or (task.worker if task is not None else "")
                self.router.retried(worker, item, up)
            case ev.WorkerReportParsed():
                self.router.report(item, up)
            case ev.ModelResponse():
                self.router.response(item, up)
            case ev.RunStarted() | ev.RunResumed() | ev.ReplanTriggered() | ev.RunFinished():
                pass
            case ev.PlanProposed() if item.origin == "replan":
                pass
            case _:
                self.router.other(item, up)
