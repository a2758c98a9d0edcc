"""The end of a run: one line for the run, one row per task, in a panel
that folds to its first line (``s``) and scrolls, so it never crushes the
panes. Enter on a row opens that task's details. Built from the run model
with narrow glyphs, not from the engine's text summary and its emoji."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from paicli_tui.present.figures import format_changes, format_clock, format_elapsed, format_tokens, merge_word
from paicli_tui.records.run_views import TaskView
from paicli_tui.ui.run.run_model import RunModel
from paicli_tui.ui.run.run_tree import OUTCOME_GLYPHS
from paicli_tui.ui.run.text_chunks import plain_line

OUTCOME_COLOURS = {
    "completed": "$success",
    "failed": "$error",
    "blocked": "$warning",
    "conflict": "$warning",
    "cancelled": "$warning",
    "skipped": "$text-muted",
    "running": "$accent",
    "pending": "$text-muted",
}
PREVIEW_CHARS = 160


def first_line(text: str) -> str:
    """The first line of a result, without its Markdown marks (the details
    show it rendered)."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    line = plain_line(line)
    return line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1] + "…"


def change_parts(task: TaskView) -> list[tuple[str, str]]:
    """With isolation: the files and lines the task changed and whether they
    were merged; a task held on a merge conflict says so in its colour."""
    parts: list[tuple[str, str]] = []
    if task.changed is not None:
        merged = merge_word(task.changed, task.merged, task.resolved)
        parts.append((f" · {format_changes(*task.changed)}", ""))
        if merged and merged != "nothing to merge":
            parts.append((f" {merged}", "$success" if task.merged else "$warning"))
    if task.status == "CONFLICT":
        files = ", ".join(task.conflict_files)
        parts.append((f" · ≠ conflict{' in ' + files if files else ''}", "$warning bold"))
    return parts


class RunSummary(Vertical):
    class TaskChosen(Message):
        def __init__(self, task_id: str) -> None:
            super().__init__()
            self.task_id = task_id

    def __init__(self, model: RunModel, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model = model

    def compose(self) -> ComposeResult:
        yield Static(id="run-summary-head")
        yield OptionList(id="run-summary-tasks")

    @property
    def tasks_list(self) -> OptionList:
        return self.query_one("#run-summary-tasks", OptionList)

    def show(self, status: str, headline: str) -> None:
        """Fill the panel for a run that ended with ``status``."""
        model = self.model
        self.border_title = Content(f"Run {status}")
        self.set_class(status != "COMPLETED", "-unsuccessful")
        words = f"{format_clock(model.elapsed())}"
        tokens = model.usage.prompt_tokens + model.usage.completion_tokens
        if tokens:
            words += f" · {format_tokens(tokens)}"
        head = Content.assemble((headline, "bold"), (f" · {words}", "$text-muted"), ("   [s] fold · Enter on a row: details", "$text-muted"))
        self.query_one("#run-summary-head", Static).update(head)
        options = self.tasks_list
        highlighted = options.highlighted
        options.clear_options()
        options.add_options(Option(self.row(task_id), id=task_id) for task_id in model.order)
        if model.order:
            options.highlighted = highlighted if highlighted is not None and highlighted < len(model.order) else 0

    def row(self, task_id: str) -> Content:
        task = self.model.tasks[task_id]
        outcome = task.outcome if task.outcome in OUTCOME_COLOURS else "pending"
        colour = OUTCOME_COLOURS[outcome]
        took = task.elapsed(self.model.now())
        figures = " · ".join(p for p in (format_elapsed(took) if took is not None else "", format_tokens(task.tokens) if task.tokens else "") if p)
        detail = first_line(task.result) if task.status in ("COMPLETED", "FAILED", "BLOCKED") and task.result else ""
        if task.error and outcome not in ("completed", "cancelled"):
            detail = f"{task.error}" + (f" — {detail}" if detail else "")
        return Content.assemble(
            (OUTCOME_GLYPHS.get(outcome, "○"), colour),
            " ",
            (task.id, "bold"),
            (f" {outcome}", colour),
            (f" · {figures}" if figures else "", "$text-muted"),
            *change_parts(task),
            (f" · {task.description}", ""),
            (f" — {detail}" if detail else "", "$text-muted"),
        )

    def toggle(self) -> None:
        self.toggle_class("-collapsed")

    @property
    def collapsed(self) -> bool:
        return self.has_class("-collapsed")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.TaskChosen(event.option.id))
