"""What the run screen's keys do: cancel the run or one task, undo a task's
changes, open a task's details, fold and unfold the screen's parts, and
move between worker panes. A mixin, so ``RunScreen`` keeps its bindings
(the help lists them under the screen) while the screen module keeps to
building and painting."""

from __future__ import annotations

from typing import Any

from textual.widgets import Tree

from paicli_tui.ui.common.dialogs import Confirm
from paicli_tui.ui.run.run_summary import RunSummary
from paicli_tui.ui.run.task_details import TaskDetailsScreen
from paicli_tui.ui.run.worker_pane import WorkerPane
from paicli_tui.ui.run.worker_strip import WorkerStrip


#: The zoomed pane's bottom line.
ZOOM_HINT = "Tab next pane · z back"


class RunKeys:
    """Actions and choice handlers of ``RunScreen``; they read and change
    the screen's own state (its model, tree, panes and layout flags)."""

    def action_cancel_run(self) -> None:
        if self.maximized is not None:
            self.minimize()
            return
        if self.timeline_on:
            self.action_toggle_timeline()
            return
        if self.model.finished:
            self.action_close()
            return
        if self.model.replay:  # a recording cannot be cancelled: back to its transcript, it plays on
            self.dismiss()
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
        """Interrupt a task: the tree's highlighted one when the tree has
        focus, else the focused (or selected) pane's current step. Its
        dependents are skipped, the rest of the run goes on."""
        if self.model.replay:
            self.notify("This is a replay: its tasks ran as recorded and cannot be cancelled", markup=False)
            return
        task_id = self._task_to_cancel()
        task = self.model.tasks.get(task_id) if task_id else None
        if task is None or task.status != "RUNNING" or self.on_cancel_task is None or self.model.finished:
            self.notify("Select a running task (Tab to the tree, or a busy pane) to cancel it",
                        severity="warning", markup=False)
            return

        def answered(yes: bool | None) -> None:
            self._cancel_confirm = None
            if yes and self.on_cancel_task is not None and not self.on_cancel_task(task_id):
                self.notify(f"{task_id} is no longer running", markup=False)

        question = (f"Cancel {task_id} ({task.description})? Tasks that depend on it are skipped; "
                    "the rest of the run goes on.")
        self._cancel_confirm = (task_id, Confirm(question))
        self.app.push_screen(self._cancel_confirm[1], answered)

    def _task_to_cancel(self) -> str | None:
        if self.task_tree.has_focus:
            return self.task_tree.cursor_task_id
        worker = self.focused.worker if isinstance(self.focused, WorkerPane) else self._selected()
        view = self.model.workers.get(worker) if worker else None
        return (view.step if view is not None else None) or self.task_tree.cursor_task_id

    def drop_stale_cancel(self) -> None:
        """A "Cancel task_N?" still open when that task (or the run) ended
        asks about nothing: close it and say so."""
        pending = getattr(self, "_cancel_confirm", None)
        if pending is None:
            return
        task_id, dialog = pending
        task = self.model.tasks.get(task_id)
        if self.model.finished or task is None or task.status != "RUNNING":
            self._cancel_confirm = None
            if dialog.is_attached:
                dialog.dismiss(False)
            self.notify(f"{task_id} already ended: nothing to cancel", markup=False)

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

    def action_details(self) -> None:
        """The details of the task the person points at: the summary's or
        the tree's highlighted row, else the focused pane's current step."""
        task_id = None
        summary = self.query_one(RunSummary)
        if summary.display and self.focused is summary.tasks_list:
            option = summary.tasks_list.highlighted_option
            task_id = option.id if option is not None else None
        elif isinstance(self.focused, WorkerPane):
            task_id = self.model.workers.get(self.focused.worker).step or None
        task_id = task_id or self.task_tree.cursor_task_id
        if task_id is None and self.model.order:
            task_id = self.model.order[0]
        if task_id is not None:
            self.open_details(task_id)

    def open_details(self, task_id: str) -> None:
        if task_id not in self.model.tasks:
            return
        details = self._details = TaskDetailsScreen(self.model, task_id, diff_source=self.diff_source)

        def closed(_: Any) -> None:
            self._details = None

        self.app.push_screen(details, closed)

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        event.stop()
        data = event.node.data
        if data is not None:
            self.open_details(data.task_id)

    def on_run_summary_task_chosen(self, event: RunSummary.TaskChosen) -> None:
        self.open_details(event.task_id)

    def on_worker_strip_worker_chosen(self, event: WorkerStrip.WorkerChosen) -> None:
        self._select(event.worker)

    def action_toggle_timeline(self) -> None:
        self.timeline_on = not self.timeline_on
        self.apply_layout()
        self.lay_out_now()

    def action_toggle_summary(self) -> None:
        summary = self.query_one(RunSummary)
        if not summary.display:
            self.notify("The summary appears when the run ends", markup=False)
            return
        summary.toggle()
        self.apply_layout()
        self.lay_out_now()

    def action_toggle_tree(self) -> None:
        tree = self.task_tree
        if self.tree_on:  # hidden, the tree loses the focus: h again gives it back
            self._tree_had_focus = self.focused is tree
        self.tree_on = not self.tree_on
        self.apply_layout()
        if self.tree_on and self._tree_had_focus and tree.display:
            tree.focus()
        self.lay_out_now()

    def action_toggle_thinking(self) -> None:
        self._toggle_view("-fold-thinking")

    def action_toggle_tools(self) -> None:
        self._toggle_view("-open-tools")

    def action_toggle_raw(self) -> None:
        self._toggle_view("-raw")
        self.notify("Raw replies shown" if self.has_class("-raw") else "Raw replies hidden", markup=False)

    def _toggle_view(self, flag: str) -> None:
        """Fold or open one kind of entry in every pane (panes draw lines: tell them)."""
        self.toggle_class(flag)
        for pane in self.panes:
            pane.restyle()

    def action_next_worker(self) -> None:
        self._step_worker(1)

    def action_previous_worker(self) -> None:
        self._step_worker(-1)

    def _step_worker(self, step: int) -> None:
        names = list(self.model.workers)
        current = self.selected if self.selected in names else (names[0] if names else None)
        if isinstance(self.focused, WorkerPane) and self.layout_now and self.layout_now.mode == "grid":
            current = self.focused.worker
        if current is None:
            return
        self._select(names[(names.index(current) + step) % len(names)])

    def _select(self, worker: str) -> None:
        self.selected, self.chosen = worker, True
        self.apply_layout()
        pane = self.pane(worker)
        if pane.display:
            pane.focus()
        self.lay_out_now()

    def action_zoom(self) -> None:
        if self.maximized is not None:
            self.minimize()
            return
        focused = self.focused if isinstance(self.focused, WorkerPane) else None
        shown = [p for p in self.panes if p.display]
        busy = self.model.busy_workers()
        target = focused or next((p for p in shown if p.worker in busy), None) or (shown or self.panes)[0]
        target.focus()
        self.maximize(target, container=False)

    def action_tab(self, step: int = 1) -> None:
        """Tab moves the focus; while a pane is zoomed, the zoom moves to the next worker's pane."""
        zoomed = self.maximized
        if not isinstance(zoomed, WorkerPane):
            self.focus_next() if step > 0 else self.focus_previous()
            return
        names = list(self.model.workers)
        worker = names[(names.index(zoomed.worker) + step) % len(names)] if zoomed.worker in names else names[0]
        self._select(worker)
        self.maximize(self.pane(worker), container=False)

    def watch_maximized(self, before: Any, after: Any) -> None:
        if isinstance(before, WorkerPane):
            before.border_subtitle = None
        if isinstance(after, WorkerPane):
            after.border_subtitle = ZOOM_HINT
            after.follow_tail()
