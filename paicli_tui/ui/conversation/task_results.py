"""A finished run's tasks in the transcript: one fold per task that left a
result, titled with its summary line's icon and id, the whole description and
how it ended, holding the result rendered as Markdown.

The run's summary text gives each result as a one-line plain preview (what a
headless run prints); in the transcript that cut results mid-thought, so the
result is shown whole, readable, one click (or ``e`` for all) away."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Collapsible

from paicli_tui import events as ev
from paicli_tui.plan.outcome import outcome_of
from paicli_tui.plan.summary import task_of_line
from paicli_tui.ui.conversation.transcript_entries import NoteLine

#: The muted line under the folds: how to read a result ("step" in a team run).
OPEN_HINT = "click a {noun} to read its result · e in the transcript unfolds them all"


class TaskResultEntry(Collapsible):
    """One task of a finished run; folded, it is one line. Its result is
    drawn as Markdown the first time it is unfolded: a run's end
    built them all at once, a UI stall of seconds for four long results."""

    def __init__(self, icon: str, task_id: str, description: str, ended: ev.TaskStatusChanged) -> None:
        self.task_id = task_id
        self.result = ended.result.strip()
        self.outcome = outcome_of(ended.status, ended.error)
        heading = f"{icon} {task_id}: {description}"
        if self.outcome != "completed":
            reason = " ".join(ended.error.split())
            heading += f" — {self.outcome}" + (f": {reason}" if reason and reason != self.outcome else "")
        self.body: Widget | None = None
        super().__init__(title=Content(heading), collapsed=True, classes=f"-{self.outcome}")

    def on_collapsible_expanded(self, event: Collapsible.Expanded) -> None:
        if event.collapsible is not self or self.body is not None:
            return
        # Its parser loads with the first unfolded result, not at start-up.
        from paicli_tui.ui.common.markdown_text import MarkdownText

        self.body = MarkdownText(self.result, classes="task-result")
        self.query_one(Collapsible.Contents).mount(self.body)


class TaskResults:
    """What a run's events said about its tasks, kept until the run's end
    replaces its summary's previews with folds."""

    def __init__(self) -> None:
        self._descriptions: dict[str, str] = {}
        self._ended: dict[str, ev.TaskStatusChanged] = {}

    def note(self, item: ev.Event) -> None:
        # Not cleared at a RunStarted: a replan starts a new version, and the
        # summary at the end still lists the tasks the earlier one finished.
        match item:
            case ev.PlanProposed() | ev.RunStarted():
                tasks = item.plan.get("tasks", []) if isinstance(item.plan, dict) else []
                self._descriptions.update({task["id"]: task.get("description", "") for task in tasks
                                           if isinstance(task, dict) and "id" in task})
            case ev.TaskStatusChanged():
                self._ended[item.task_id] = item

    def entries(self, summary: str, kind: str) -> list[Widget]:
        """The summary's lines as notes, each line of a task with a result
        as its fold instead; one note, as before, when no task left one."""
        widgets: list[Widget] = []
        notes: list[str] = []

        def flush() -> None:
            if notes:
                widgets.append(NoteLine("\n".join(notes), kind))
                notes.clear()

        for line in summary.splitlines():
            found = task_of_line(line)
            ended = self._ended.get(found[1]) if found else None
            if found is None or ended is None or not ended.result.strip():
                notes.append(line)
                continue
            flush()
            icon, task_id = found
            description = self._descriptions.get(task_id) or line.partition(": ")[2].partition(" — ")[0]
            widgets.append(TaskResultEntry(icon, task_id, " ".join(description.split()), ended))
        flush()
        folds = [widget for widget in widgets if isinstance(widget, TaskResultEntry)]
        if folds:
            noun = "step" if all(fold.task_id.startswith("step_") for fold in folds) else "task"
            widgets.append(NoteLine(OPEN_HINT.format(noun=noun), "muted"))
        self._descriptions.clear()
        self._ended.clear()
        return widgets
