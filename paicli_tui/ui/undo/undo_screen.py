"""/undo (P-9.3): the runs whose tools changed files, newest first; the files
of the selected run and what reverting does to each, as a diff, before
anything is touched. ``r`` reverts; files changed since by someone else are
kept unless the person says to overwrite them. Opened from the run screen
it shows one task's changes only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from paicli_tui.checkpoints.revert import RevertPlan
from paicli_tui.checkpoints.store import RunRecord
from paicli_tui.ui.approval.diff_view import colour_diff
from paicli_tui.ui.undo.conflict_dialog import KEEP, OVERWRITE, ConflictDialog
from paicli_tui.checkpoints.revert import run_label
from paicli_tui.ui.undo.undo_rows import file_row, notes, run_row

HINT = "r revert · tab runs / files · ↑↓ choose · esc close"
TASK_HINT = "r revert this task's changes · ↑↓ choose a file · esc back"
#: Below this many columns the runs list goes on top.
NARROW_BELOW = 100


class UndoScreen(Screen[None]):
    CSS_PATH = Path(__file__).with_name("undo_screen.tcss")

    BINDINGS = [
        Binding("r", "revert", "Revert", id="undo.revert"),
        Binding("escape,q", "close", "Close", id="undo.close"),
    ]

    def __init__(self, checkpoints: Any, *, run_id: str | None = None, task: str = "",
                 version: int | None = None) -> None:
        super().__init__(id="undo")
        self.checkpoints = checkpoints
        self.fixed_run = run_id
        self.task_id = task
        self.plan_version = version
        self.runs: list[RunRecord] = []
        self.plan: RevertPlan | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="undo-title")
        with Horizontal(id="undo-body"):
            yield OptionList(id="undo-runs")
            with Vertical(id="undo-detail"):
                yield OptionList(id="undo-files")
                with VerticalScroll(id="undo-diff"):
                    yield Static(id="undo-diff-text")
        yield Static(id="undo-notes")
        yield Static(Content.styled(TASK_HINT if self.fixed_run else HINT, "$text-muted"), id="undo-hints")

    def on_mount(self) -> None:
        self.query_one("#undo-runs").border_title = "Runs"
        self.query_one("#undo-files").border_title = "Files"
        self.query_one("#undo-diff").border_title = "What reverting does"
        self.on_resize()
        self._load()

    def on_resize(self) -> None:
        self.set_class(self.size.width < NARROW_BELOW, "-narrow")

    # -- filling -----------------------------------------------------------------

    def _load(self, keep: str | None = None) -> None:
        """Read the runs again (after an undo) and select ``keep`` or the
        run an undo would take by default."""
        if self.fixed_run:
            run = self.checkpoints.run(self.fixed_run)
            self.runs = [run] if run is not None else []
        else:
            self.runs = self.checkpoints.runs()
        options = self.query_one("#undo-runs", OptionList)
        options.display = not self.fixed_run
        options.clear_options()
        for run in self.runs:
            options.add_option(Option(run_row(run), id=run.run_id))
        if not self.runs:
            self._show(None)
            return
        wanted = keep or self._default_run()
        index = next((i for i, run in enumerate(self.runs) if run.run_id == wanted), 0)
        options.highlighted = index
        self._show(self.runs[index])
        (self.query_one("#undo-files") if self.fixed_run else options).focus()

    def _default_run(self) -> str | None:
        latest = self.checkpoints.reverter.latest()
        return latest.run_id if latest is not None else None

    def _show(self, run: RunRecord | None) -> None:
        self.plan = self.checkpoints.reverter.plan(run, self.task_id, self.plan_version) if run is not None else None
        title = Content.styled("Undo", "bold")
        if self.plan is not None:
            scope = f" · {self.task_id} only" if self.task_id else ""
            title = Content.assemble(title, " · ", (run_label(self.plan.run), "bold $accent"), scope)
        self.query_one("#undo-title", Static).update(title)
        files = self.query_one("#undo-files", OptionList)
        files.clear_options()
        for item in self.plan.files if self.plan is not None else ():
            files.add_option(Option(file_row(item), id=item.path))
        if files.option_count:
            files.highlighted = 0
            self._show_diff(self.plan.files[0].path)
        else:
            self._show_diff(None)
        self.query_one("#undo-notes", Static).update(notes(self.plan))

    def _show_diff(self, path: str | None) -> None:
        text = self.query_one("#undo-diff-text", Static)
        self.query_one("#undo-diff").border_title = f"What reverting does to {path}" if path else "What reverting does"
        if path is None or self.plan is None:
            text.update(Content.styled("Nothing to show.", "italic $text-muted"))
            return
        item = next(f for f in self.plan.files if f.path == path)
        if item.status == "done":
            text.update(Content.styled(f"{path} is already as it was before the run.", "italic $text-muted"))
            return
        text.update(colour_diff(self.checkpoints.diff(self.plan, path)))
        self.query_one("#undo-diff", VerticalScroll).scroll_home(animate=False)

    @on(OptionList.OptionHighlighted, "#undo-runs")
    def _run_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        index = event.option_index
        if 0 <= index < len(self.runs) and (self.plan is None or self.plan.run.run_id != self.runs[index].run_id):
            self._show(self.runs[index])

    @on(OptionList.OptionHighlighted, "#undo-files")
    def _file_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_diff(event.option.id)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()  # Enter only moves on: reverting is its own key
        if event.option_list.id == "undo-runs":
            self.query_one("#undo-files").focus()

    # -- keys ----------------------------------------------------------------------

    def action_revert(self) -> None:
        plan = self.plan
        if plan is None or plan.empty:
            self.notify("Nothing to undo in this run", severity="warning", markup=False)
            return
        conflicts = plan.conflicts
        if not conflicts:
            self._revert(plan, ())
            return
        others = sum(1 for f in plan.files if f.status == "ok")

        def answered(answer: str | None) -> None:
            if answer == OVERWRITE:
                self._revert(plan, [f.path for f in conflicts])
            elif answer == KEEP:
                self._revert(plan, ())

        self.app.push_screen(ConflictDialog(conflicts, others), answered)

    def _revert(self, plan: RevertPlan, overwrite: list[str]) -> None:
        result = self.checkpoints.undo(plan, overwrite)
        severity = "error" if result.failed else "warning" if result.skipped else "information"
        self.notify(f"Undo: {result.summary()}", severity=severity, markup=False)
        if (result.restored or result.overwritten) and not result.failed and not result.skipped:
            self.dismiss(None)
            return
        self._load(keep=plan.run.run_id)

    def action_close(self) -> None:
        self.dismiss(None)
