"""The run screen (P-7.3, P-4.7, P-7.6): the task tree updating live beside
one pane per worker, each streaming its sub-agent as it happens.

The app hands the screen each frame's drained events (``paint``); the
``RunModel`` turns them into per-pane text and changed tasks, and each pane
gets one write per frame. The title line shows the run's tokens and cost.
Esc asks before cancelling the run; when the run ends the summary appears
and Enter, Esc or q goes back to the main screen.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Iterable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal
from textual.screen import Screen
from textual.widgets import Static

from paicli_tui.plan.model import Plan
from paicli_tui.ui.common.figures import usage_text
from paicli_tui.ui.run.run_model import RunModel, tasks_from_plan
from paicli_tui.ui.conversation.main_screen import JobEnded
from paicli_tui.ui.review.plan_edit_dialogs import Confirm
from paicli_tui.ui.common.task_tree import TaskTree
from paicli_tui.ui.run.worker_pane import MAX_LINES, WorkerPane

#: Below this many columns the tree goes on top and the panes stack.
NARROW_BELOW = 100
TICK_SECONDS = 1.0


def grid_shape(workers: int, narrow: bool) -> tuple[int, int]:
    """(columns, rows) of the pane grid."""
    workers = max(1, workers)
    if narrow:
        columns = 1 if workers <= 2 else 2
    else:
        columns = workers if workers <= 3 else math.ceil(math.sqrt(workers))
    return columns, math.ceil(workers / columns)


class RunScreen(Screen):
    CSS_PATH = "run_screen.tcss"

    BINDINGS = [
        Binding("escape", "cancel_run", "Cancel run / close", id="run.cancel"),
        # Priority: the focused tree would take Enter otherwise.
        Binding("enter", "close", "Close", show=False, priority=True, id="run.close"),
        Binding("q", "close", "Close", show=False, id="run.close_q"),
        Binding("z", "zoom", "Zoom pane", id="run.zoom"),
        Binding("c", "cancel_task", "Cancel the selected task", id="run.cancel_task"),
        Binding("u", "undo_task", "Undo the selected task's file changes", id="run.undo_task"),
    ]

    def __init__(
        self,
        plan: Plan | dict,
        goal: str,
        workers: Iterable[str],
        *,
        kind: str = "plan",
        on_cancel: Callable[[], Any] | None = None,
        on_cancel_task: Callable[[str], Any] | None = None,
        on_undo_task: Callable[[str, int], Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_lines: int = MAX_LINES,
        tick: bool = True,
        price: Any = None,
    ) -> None:
        super().__init__(id="run")
        self.goal = goal
        self.kind = kind
        self.on_cancel = on_cancel
        self.on_cancel_task = on_cancel_task
        #: Opens the undo screen for one task (id, plan version) once the run ended.
        self.on_undo_task = on_undo_task
        self.clock = clock
        self.max_lines = max_lines
        self.model = RunModel(tasks_from_plan(plan), workers, clock=clock)
        self.cancelling = False
        self.price = price
        self._tick = tick
        self._panes: dict[str, WorkerPane] = {}
        self._early: list[Any] = []  # events that arrived before the screen was mounted

    # -- layout --------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="run-heading"):
            yield Static(id="run-title")
            yield Static(id="run-usage")
        with Horizontal(id="run-body"):
            yield TaskTree("Run", live=True, clock=self.clock, id="run-tree")
            with Container(id="run-panes"):
                for name in self.model.workers:
                    yield WorkerPane(name, max_lines=self.max_lines, id=f"pane-{name}")
        yield Static(id="run-summary")
        yield Static(id="run-hints")

    def on_mount(self) -> None:
        tree = self.task_tree
        tree.border_title = "Tasks" if self.kind == "plan" else "Steps"
        tree.show_tasks(self.model.task_list())
        first_line = self.goal.splitlines()[0] if self.goal else ""
        self.query_one("#run-title", Static).update(Text(f"/{self.kind} · {first_line}", style="bold"))
        self.query_one("#run-summary").display = False
        self._update_hints()
        self._update_usage()
        self._layout_panes()
        if self._tick:
            self.set_interval(TICK_SECONDS, tree.refresh_running, name="run-elapsed")
        if self._early:
            self.call_later(self.paint, [])

    def on_resize(self) -> None:
        self._layout_panes()

    def _layout_panes(self) -> None:
        narrow = self.size.width < NARROW_BELOW
        self.set_class(narrow, "-narrow")
        columns, rows = grid_shape(len(self.model.workers), narrow)
        grid = self.query_one("#run-panes").styles
        grid.grid_size_columns = columns
        grid.grid_size_rows = rows

    @property
    def task_tree(self) -> TaskTree:
        return self.query_one(TaskTree)

    def pane(self, worker: str) -> WorkerPane:
        pane = self._panes.get(worker)
        if pane is None:
            pane = self._panes[worker] = self.query_one(f"#pane-{worker}", WorkerPane)
        return pane

    @property
    def panes(self) -> list[WorkerPane]:
        return list(self.query(WorkerPane))

    # -- painting (once per frame, from the app) ---------------------------------------------

    async def paint(self, items: list[Any]) -> None:
        if self.model.finished:
            return
        if not self.is_mounted:  # pushed this frame: paint once it is mounted
            self._early.extend(items)
            return
        if self._early:
            items, self._early = [*self._early, *items], []
        update = self.model.apply(items)
        if update.new_workers:
            await self.query_one("#run-panes").mount_all(
                WorkerPane(name, max_lines=self.max_lines, id=f"pane-{name}") for name in update.new_workers
            )
            self._layout_panes()
        if update.plan_replaced:
            self.task_tree.show_tasks(self.model.task_list())
        else:
            for task_id in update.tasks:
                if task_id in self.model.tasks:
                    self.task_tree.update_task(self.model.tasks[task_id])
        for worker, segments in update.output.items():
            self.pane(worker).append(segments)
        for worker in update.workers:
            self.pane(worker).set_title(self.model.pane_title(worker))
        if update.usage_changed:
            self._update_usage()
        if update.finished:
            self._show_summary(self.model.status, self.model.summary)
        elif not self.model.finished:
            for item in items:
                if isinstance(item, JobEnded):
                    self._job_ended(item)

    def _job_ended(self, ended: JobEnded) -> None:
        # The run ended without a RunFinished (it failed or was cancelled
        # before any task started): say how, so the screen never hangs.
        outcome = ended.outcome
        text = str(ended.error) if ended.error is not None else getattr(outcome, "text", "") or "the run ended"
        self.model.finished = True
        self._show_summary(str(getattr(outcome, "status", "FAILED")), text)

    def _show_summary(self, status: str, summary: str) -> None:
        box = self.query_one("#run-summary", Static)
        box.border_title = f"Run {status}"
        box.set_class(status != "COMPLETED", "-unsuccessful")
        box.update(Text(summary))
        box.display = True
        self._update_hints()

    def _update_usage(self) -> None:
        self.query_one("#run-usage", Static).update(Text(usage_text(self.model.usage, self.price)))

    def _update_hints(self) -> None:
        if self.model.finished:
            hint = "[Enter/Esc/q] back to the conversation · [z] zoom pane · [Tab] next pane"
            if self.on_undo_task is not None:
                hint += " · [u] undo a task's changes"
        elif self.cancelling:
            hint = "Cancelling… running tasks are being interrupted"
        else:
            hint = "[Esc] cancel the run · [c] cancel the selected task · [z] zoom pane · [Tab] next pane"
        self.query_one("#run-hints", Static).update(Text(hint))

    # -- keys -------------------------------------------------------------------------------

    def action_cancel_run(self) -> None:
        if self.maximized is not None:
            self.minimize()
            return
        if self.model.finished:
            self.action_close()
            return
        if self.cancelling:
            self.notify("Already cancelling…", markup=False)
            return

        def answered(yes: bool | None) -> None:
            if yes and not self.model.finished:
                self.cancelling = True
                if self.on_cancel is not None:
                    self.on_cancel()
                self._update_hints()

        question = "Cancel the run? Running tasks are interrupted; completed work is kept in the summary."
        self.app.push_screen(Confirm(question), answered)

    def action_cancel_task(self) -> None:
        """Interrupt the task under the tree's cursor: its dependents are
        skipped, the rest of the run goes on."""
        task_id = self.task_tree.cursor_task_id
        task = self.model.tasks.get(task_id) if task_id else None
        if task is None or task.status != "RUNNING" or self.on_cancel_task is None or self.model.finished:
            self.notify("Select a running task in the tree to cancel it", severity="warning", markup=False)
            return

        def answered(yes: bool | None) -> None:
            if yes and self.on_cancel_task is not None and not self.on_cancel_task(task_id):
                self.notify(f"{task_id} is no longer running", markup=False)

        question = f"Cancel {task_id}? Tasks that depend on it are skipped; the rest of the run goes on."
        self.app.push_screen(Confirm(question), answered)

    def action_undo_task(self) -> None:
        """Open the undo screen on the file changes of the task under the
        tree's cursor (after the run: a running task may still be writing)."""
        task_id = self.task_tree.cursor_task_id
        if self.on_undo_task is None:
            self.notify("Undo is not available for this run", severity="warning", markup=False)
        elif not self.model.finished:
            self.notify("Undo a task's changes once the run has ended", severity="warning", markup=False)
        elif not task_id or task_id not in self.model.tasks:
            self.notify("Select a task in the tree to undo its changes", severity="warning", markup=False)
        else:
            self.on_undo_task(task_id, self.model.version)

    def action_close(self) -> None:
        if self.model.finished:
            self.dismiss()

    def action_zoom(self) -> None:
        if self.maximized is not None:
            self.minimize()
            return
        focused = self.focused if isinstance(self.focused, WorkerPane) else None
        target = focused or next((p for p in self.panes if p.worker in self._busy_workers()), None) or self.panes[0]
        target.focus()
        self.maximize(target, container=False)

    def _busy_workers(self) -> list[str]:
        return [name for name, view in self.model.workers.items() if view.step]
