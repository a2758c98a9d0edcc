"""The run screen (P-7.3, P-4.7, P-7.6): the task tree updating live beside
one pane per worker, each streaming its sub-agent as rendered Markdown.

The app hands the screen each frame's drained events (``paint``); the
``RunModel`` turns them into pane ops and changed tasks, and each pane gets
one write per frame. ``run_layout`` decides, for the size, whether the
panes form a grid or the selected worker is shown large with the others as
live rows. ``g`` swaps the panes for the timeline, Enter (or ``d``) opens a
task's details, and when the run ends the summary panel appears below the
panes, foldable with ``s``. Esc asks before cancelling the run; once it
ended, Esc or q goes back to the main screen.
"""

from __future__ import annotations

import gc

import time
from typing import Any, Callable, Iterable

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widget import MountError
from textual.widgets import Static

from paicli_tui.plan.model import Plan
from paicli_tui.present.figures import narrow_glyphs
from paicli_tui.records.run_views import tasks_from_plan
from paicli_tui.ui.bridge.pump_items import JobEnded
from paicli_tui.ui.run.run_figures import heading_figures
from paicli_tui.ui.run.run_hints import hints_for
from paicli_tui.ui.run.run_keys import RunKeys
from paicli_tui.ui.run.run_layout import RunLayout, plan_layout
from paicli_tui.ui.run.run_model import RunModel
from paicli_tui.ui.run.run_summary import RunSummary
from paicli_tui.ui.run.run_tree import RunTaskTree
from paicli_tui.ui.run.task_details import TaskDetailsScreen
from paicli_tui.ui.run.timeline import RunTimeline
from paicli_tui.ui.run.worker_pane import MAX_ENTRIES, WorkerPane
from paicli_tui.ui.run.worker_strip import WorkerStrip

TICK_SECONDS = 0.2
#: Rows of the heading and the hint line around the body.
CHROME_ROWS = 2


class RunScreen(RunKeys, Screen):
    CSS_PATH = "run_screen.tcss"

    BINDINGS = [
        Binding("escape", "cancel_run", "Cancel run / close", id="run.cancel"),
        Binding("q", "close", "Close", show=False, id="run.close_q"),
        Binding("enter", "details", "Task details", show=False, id="run.details"),
        Binding("d", "details", "Task details", show=False, id="run.details_d"),
        Binding("g", "toggle_timeline", "Timeline", id="run.timeline"),
        Binding("s", "toggle_summary", "Fold the summary", id="run.summary"),
        Binding("h", "toggle_tree", "Hide the tasks", id="run.tree"),
        Binding("z", "zoom", "Zoom pane", id="run.zoom"),
        Binding("tab", "tab(1)", "Next pane (the next zoomed pane)", show=False, id="run.tab"),
        Binding("shift+tab", "tab(-1)", "Previous pane", show=False, id="run.shift_tab"),
        Binding("right_square_bracket", "next_worker", "Next worker", id="run.next_worker"),
        Binding("left_square_bracket", "previous_worker", "Previous worker", id="run.previous_worker"),
        Binding("t", "toggle_thinking", "Fold thinking", id="run.thinking"),
        Binding("o", "toggle_tools", "Open tool calls", id="run.tools"),
        Binding("r", "toggle_raw", "Raw replies", id="run.raw"),
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
        clock: Callable[[], float] = time.time,
        max_entries: int = MAX_ENTRIES,
        tick: bool = True,
        price: Any = None,
        replay: bool = False,
        diff_source: Callable[[str, str], str | None] | None = None,
        limits: dict | None = None,
        where: str = "",
    ) -> None:
        super().__init__(id="run")
        #: Where the tasks run when not here ("ray @ HOST:PORT"); the heading says it.
        self.where = "" if where == "local" else where
        self.goal = goal
        self.kind = kind
        self.on_cancel = on_cancel
        self.on_cancel_task = on_cancel_task
        #: Opens the undo screen for one task (id, plan version) once the run ended.
        self.on_undo_task = on_undo_task
        #: Reads a task's diff (base, result commits) for its details.
        self.diff_source = diff_source
        self.max_entries = max_entries
        self.model = RunModel(tasks_from_plan(plan), workers, clock=clock, kind=kind)
        self.model.replay = replay
        self.model.price = price
        self.model.max_cost = (limits or {}).get("max_cost")
        self.model.run_max_cost = (limits or {}).get("run_max_cost")
        self.cancelling = False
        self.price = price
        self.selected: str | None = None  # the worker shown large in the focus layout
        self._cancel_confirm: tuple[str, Any] | None = None  # (task id, the open "Cancel task_N?" dialog)
        self.chosen = False  # the person picked it: stop following the busy worker
        self.timeline_on = False
        self.tree_on = True
        self._tree_had_focus = False  # when h hid it (h again gives the focus back)
        self.layout_now: RunLayout | None = None
        self._tick = tick
        self._panes: dict[str, WorkerPane] = {}
        self._details: TaskDetailsScreen | None = None
        self._early: list[Any] = []  # events that arrived before the screen was ready
        self._ready = False
        self._figures = ""
        self._hints = ""

    # -- layout --------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="run-heading"):
            yield Static(id="run-title")
            yield Static(Content(" REPLAY "), id="run-badge")
            yield Static(id="run-figures")
        with Horizontal(id="run-body"):
            yield RunTaskTree("Run", clock=self.model.now, id="run-tree")
            with Vertical(id="run-main"):
                with Container(id="run-panes"):
                    for name in self.model.workers:
                        yield self._new_pane(name)
                yield WorkerStrip(self.model, id="run-strip")
                with VerticalScroll(id="run-timeline-box"):
                    yield RunTimeline(self.model, id="run-timeline")
        yield RunSummary(self.model, id="run-summary")
        yield Static(id="run-hints")

    def _new_pane(self, name: str) -> WorkerPane:
        return WorkerPane(name, max_entries=self.max_entries, id=f"pane-{name}")

    def on_mount(self) -> None:
        self.model.replay = self.model.replay or self.app.session.is_replay
        self.query_one("#run-badge").display = self.model.replay
        tree = self.task_tree
        tree.border_title = "Tasks" if self.kind == "plan" else "Steps"
        tree.show_tasks(self.model.task_list())
        first_line = self.goal.splitlines()[0] if self.goal else ""
        title = Content.assemble((f"/{self.kind} · {first_line}", "bold"))
        if self.where:
            title = Content.assemble(title, (f" · tasks on {self.where}", "italic"))
        self.query_one("#run-title", Static).update(title)
        self.query_one("#run-summary").display = False
        self.query_one("#run-timeline-box").display = False
        self._refresh_heading()
        self.apply_layout()
        if self._tick:
            self._clock = self.set_interval(TICK_SECONDS, self._tick_live, name="run-elapsed")
        self._ready = True
        if self._early:
            self.call_later(self.paint, [])

    def on_resize(self) -> None:
        self.apply_layout()

    def _body_height(self) -> int:
        summary = self.query_one(RunSummary)
        return max(1, self.size.height - CHROME_ROWS - (self._summary_rows() if summary.display else 0))

    def _summary_rows(self) -> int:
        summary = self.query_one(RunSummary)
        if summary.collapsed:
            return 3
        return min(len(self.model.order) + 3, max(5, int(self.size.height * 0.35)))

    def apply_layout(self) -> None:
        if not self.is_mounted or not self.size.width:
            return
        summary = self.query_one(RunSummary)
        if summary.display:
            summary.styles.height = self._summary_rows()
        workers = list(self.model.workers)
        layout = self.layout_now = plan_layout(
            self.size.width, self._body_height(), workers, selected=self._selected(),
            tree_wanted=self.task_tree.wanted_width(), tree_visible=self.tree_on,
        )
        tree = self.task_tree
        tree.display = layout.tree_width > 0
        if layout.tree_width:
            tree.styles.width = layout.tree_width
        grid = self.query_one("#run-panes")
        grid.styles.grid_size_columns, grid.styles.grid_size_rows = layout.columns, layout.rows
        grid.display = not self.timeline_on
        for name in workers:
            pane = self.pane(name)
            pane.display = name in layout.shown
            pane.styles.column_span = layout.last_span if layout.shown and name == layout.shown[-1] else 1
        strip = self.query_one(WorkerStrip)
        strip.show(() if self.timeline_on else layout.strip)
        self.query_one("#run-timeline-box").display = self.timeline_on
        if self.timeline_on:
            self.query_one(RunTimeline).refresh_chart()
        self._update_hints()

    def lay_out_now(self) -> None:
        """Lay out and paint the screen before the key that changed its
        layout returns. Left to Textual, the new layout waits for the next
        screen update tick (up to 1/60 s), and a tick that falls inside a
        pane frame's batch is put off a whole period: ``h`` then took up to
        60 ms to show while panes streamed. The layout messages the changed
        widgets post still arrive; the second layout they cause finds
        nothing left to move on screen."""
        if self.is_current and not self.app._batch_count:
            # Tens of young collections ran inside this one paint and freed
            # next to nothing (its garbage goes by reference counting).
            collecting = gc.isenabled()
            gc.disable()
            try:
                self._refresh_layout()
            finally:
                if collecting:
                    gc.enable()

    def _selected(self) -> str | None:
        if not self.chosen:
            busy = self.model.busy_workers()
            if busy and self.selected not in busy:
                self.selected = busy[0]
        return self.selected

    @property
    def task_tree(self) -> RunTaskTree:
        return self.query_one(RunTaskTree)

    def pane(self, worker: str) -> WorkerPane:
        pane = self._panes.get(worker)
        if pane is None:
            pane = self._panes[worker] = self.query_one(f"#pane-{worker}", WorkerPane)
        return pane

    @property
    def panes(self) -> list[WorkerPane]:
        return [pane for pane in self.query(WorkerPane) if pane.worker in self.model.workers]

    # -- painting (once per frame, from the app) ---------------------------------------------

    @property
    def going_away(self) -> bool:
        """The screen is being closed (the app exits, or it was popped)
        while a frame may still be painting it."""
        return self._pruning or self._closing or not self.is_attached

    async def paint(self, items: list[Any]) -> None:
        if self.model.finished or self.going_away:
            return
        try:
            # One layout and one render for the whole frame: the pane writes
            # await mounts, and each await would otherwise let the screen
            # lay out and repaint everything in between.
            with self.app.batch_update():
                await self._paint(items)
        except (MountError, NoMatches):
            if not self.going_away:
                raise

    async def _paint(self, items: list[Any]) -> None:
        if not self._ready:  # pushed this frame: paint once it is mounted
            self._early.extend(items)
            return
        if self._early:
            items, self._early = [*self._early, *items], []
        update = self.model.apply(items)
        relayout = False
        if update.new_workers:
            await self.query_one("#run-panes").mount_all(self._new_pane(name) for name in update.new_workers)
            relayout = True
        tree = self.task_tree
        if update.plan_replaced:
            tree.show_tasks(self.model.task_list())
            relayout = True
        else:
            for task_id in update.tasks:
                if task_id in self.model.tasks:
                    tree.update_task(self.model.tasks[task_id])
        for worker, frame_ops in update.output.items():
            await self.pane(worker).write(frame_ops)
        for worker in update.workers | self.model.workers_on(update.tasks):
            self.pane(worker).set_title(self.model.pane_title(worker))
            self.pane(worker).set_class(self.model.in_conflict(worker), "-conflict")
        if update.workers and self.layout_now is not None and self.layout_now.mode == "focus" and not self.chosen:
            relayout = relayout or self._selected() not in self.layout_now.shown
        if relayout:
            self.apply_layout()
        strip = self.query_one(WorkerStrip)
        if strip.display:
            strip.refresh_rows()
        if self.timeline_on and update.timeline_changed:
            self.query_one(RunTimeline).refresh_chart()
        if self._details is not None and self._details.task_id in update.tasks:
            self._details.refresh_details()
        self._refresh_heading()
        if update.tasks or update.finished:
            self.drop_stale_cancel()
        if update.finished:
            self._show_summary(self.model.status, self.model.summary)
        elif not self.model.finished:
            for item in items:
                if isinstance(item, JobEnded):
                    self._job_ended(item)

    def _tick_live(self) -> None:
        """Times move on while tasks run: relabel what shows them."""
        if self.model.finished:  # nothing moves any more: stop waking up
            return self._clock.stop()
        self.task_tree.refresh_running()
        strip = self.query_one(WorkerStrip)
        if strip.display:
            strip.refresh_rows()
        self._refresh_heading()
        if self.timeline_on:
            self.query_one(RunTimeline).refresh_chart()
        if self._details is not None:
            self._details.refresh_details()

    def _job_ended(self, ended: JobEnded) -> None:
        # The run ended without a RunFinished (it failed or was cancelled
        # before any task started): say how, so the screen never hangs.
        outcome = ended.outcome
        text = str(ended.error) if ended.error is not None else getattr(outcome, "text", "") or "the run ended"
        self.model.finished = True
        self.model.finished_at = self.model.latest_ts
        self._show_summary(str(getattr(outcome, "status", "FAILED")), text)

    def _show_summary(self, status: str, summary: str) -> None:
        panel = self.query_one(RunSummary)
        headline = narrow_glyphs(summary.splitlines()[0] if summary else f"Run {status}")
        panel.show(status, headline)
        panel.display = True
        self.task_tree.refresh_running()
        self._refresh_heading()
        self.apply_layout()
        if not isinstance(self.focused, WorkerPane):
            panel.tasks_list.focus()

    def _refresh_heading(self) -> None:
        figures = heading_figures(self.model, self.price, compact=self.size.width < 100)
        if figures != self._figures:
            # The label is as wide as its text: only a new width needs the
            # screen laid out again (a full repaint); a ticking clock does not.
            resized = cell_len(figures) != cell_len(self._figures or "")
            self._figures = figures
            self.query_one("#run-figures", Static).update(Content(figures), layout=resized)

    def _update_hints(self) -> None:
        state = ("finished" if self.model.finished else "cancelling" if self.cancelling
                 else "replaying" if self.model.replay else "running")
        focus = bool(self.layout_now and self.layout_now.mode == "focus")
        hints = hints_for(state, self.size.width, focus=focus)
        if state == "finished" and self.on_undo_task is not None:
            hints += " · [u] undo a task's changes"
        if hints != self._hints:  # the line's height and width never change: repaint it only
            self._hints = hints
            self.query_one("#run-hints", Static).update(Content(hints), layout=False)
