"""The run screen's task tree: the shared ``TaskTree`` with compact live rows.

A row leads with what changes — status, id, time, worker, tokens — and ends
with the description, so a narrow tree still shows the live fields; the
type and the dependencies (the tree's shape already shows them) are in the
task's details. A task the cancel interrupted has its own glyph, apart from
one that never ran.
"""

from __future__ import annotations

from rich.text import Text

from paicli_tui.present.figures import format_elapsed, format_tokens
from paicli_tui.ui.common.task_tree import GLYPHS, TaskTree

#: Glyph and colour per outcome (``TaskView.outcome``); narrow characters only.
OUTCOME_GLYPHS = {**{status.lower(): glyph for status, glyph in GLYPHS.items()}, "cancelled": "⊗"}
_OUTCOME_STYLE = {"cancelled": "blocked"}


def short_worker(worker: str) -> str:
    """``worker-2`` → ``w2``: the pane title has the full name."""
    return "w" + worker.removeprefix("worker-") if worker.startswith("worker-") else worker


class RunTaskTree(TaskTree):
    def __init__(self, label: str, *, clock, id: str | None = None) -> None:
        super().__init__(label, clock=clock, live=True, id=id)
        self.auto_expand = False  # Enter opens a task's details; the tree's shape stays

    def show_tasks(self, tasks, problems=None) -> None:
        """As the shared tree, and the cursor always on a row (the first when
        none was): ``c`` and Enter act on the row it shows, from the start."""
        super().show_tasks(tasks, problems)
        if self.cursor_task_id is None:
            self.select_first()

    def task_label(self, task_id: str, repeat: bool, width: int | None = None) -> Text:
        task = self._tasks[task_id]
        outcome = task.outcome if task.outcome in OUTCOME_GLYPHS else "pending"
        muted, live = self._style("muted"), self._style("live")
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(OUTCOME_GLYPHS[outcome], self._style(_OUTCOME_STYLE.get(outcome, outcome)))
        text.append(" ")
        text.append(task.id, self._style("id"))
        if repeat:
            text.append(" ↺ repeat", muted)
            return text
        now = self.clock() if self.clock is not None else None
        elapsed = task.elapsed(now) if now is not None else None
        fields = []
        if elapsed is not None:
            fields.append(format_elapsed(elapsed))
        if task.worker:
            fields.append(short_worker(task.worker) + (f"#{task.attempt}" if task.attempt > 1 else ""))
        if task.tokens:
            fields.append(format_tokens(task.tokens, ""))
        if fields:
            text.append(" " + " ".join(fields), live)
        text.append(f" {task.description}" if task.description else " (no description)")
        return text

    def wanted_width(self) -> int:
        """Cells the widest row needs (guides and label), plus the border
        and the scrollbar."""
        _ = self.last_line  # lays the lines out
        return self.virtual_size.width + 3
