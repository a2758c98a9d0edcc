"""One task in full (Enter or ``d`` on the tree or the summary): what it
was asked, where it sits in the plan, who ran it, every attempt with its
report and verdict, its tokens and time, and its whole result as Markdown.
It stays live: the run screen tells it when its task changed, and its times
tick with the run's clock (recorded times in a replay)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static

from paicli_tui.present.figures import format_elapsed, format_tokens
from paicli_tui.ui.run.run_model import RunModel
from paicli_tui.ui.run.run_summary import OUTCOME_COLOURS
from paicli_tui.records.run_views import AttemptView


def attempt_lines(attempt: AttemptView, now: float) -> list[Content]:
    took = format_elapsed(attempt.duration(now))
    colour = OUTCOME_COLOURS.get(attempt.outcome, "$accent") if attempt.outcome != "rejected" else "$warning"
    head = Content.assemble(
        (f"attempt {attempt.number}", "bold"),
        f" · {attempt.worker} · {took}",
        (f" · {format_tokens(attempt.tokens)}" if attempt.tokens else "", ""),
        (f" · {attempt.outcome}", colour),
    )
    lines = [head]
    if attempt.report is not None:
        status, _, reason = attempt.report
        lines.append(Content(f"  report: {status}" + (f" — {reason}" if reason else "")))
    verdict = attempt.verdict
    if verdict is not None:
        word = "approved" if verdict.approved else "rejected"
        lines.append(Content.assemble("  ", (f"{'✓' if verdict.approved else '✗'} {word}", "$success" if verdict.approved else "$warning"),
                                      f" by {verdict.reviewer}" + (f": {verdict.summary}" if verdict.summary else "")))
        if not verdict.approved and verdict.feedback and verdict.feedback != verdict.summary:
            lines.extend(Content(f"    {line}") for line in verdict.feedback.splitlines() if line.strip())
        lines.extend(Content(f"    note: {note}") for note in verdict.notes)
    elif attempt.review_started is not None:
        lines.append(Content(f"  in review by {attempt.reviewer}"))
    return lines


class TaskDetailsScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    TaskDetailsScreen { align: center middle; }
    TaskDetailsScreen > #details {
        width: 90%;
        max-width: 110;
        height: 90%;
        border: round $accent;
        border-title-color: $accent;
        background: $surface;
        padding: 0 1;
    }
    TaskDetailsScreen .section { color: $text-muted; text-style: bold; margin-top: 1; }
    TaskDetailsScreen Markdown { margin: 0; padding: 0; background: transparent; }
    TaskDetailsScreen > #details { border-subtitle-color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close", id="details.close"),
        Binding("q", "close", "Close", show=False, id="details.close_q"),
        Binding("enter", "close", "Close", show=False, id="details.close_enter"),
    ]

    def __init__(self, model: RunModel, task_id: str) -> None:
        super().__init__()
        self.model = model
        self.task_id = task_id
        self._shown_result: str | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="details"):
            yield Static(id="details-facts")
            yield Static("Attempts", classes="section", id="details-attempts-title")
            yield Static(id="details-attempts")
            yield Static("Result", classes="section", id="details-result-title")
            yield Markdown(id="details-result")

    def on_mount(self) -> None:
        self.query_one("#details").border_subtitle = Content("[Esc/q/Enter] close · ↑↓ scroll")
        self.refresh_details()
        self.query_one("#details").focus()

    def refresh_details(self) -> None:
        """Show the task as the model has it now."""
        task = self.model.tasks.get(self.task_id)
        box = self.query_one("#details")
        if task is None:
            box.border_title = Content(f"{self.task_id} · no longer in the plan")
            return
        now = self.model.now()
        colour = OUTCOME_COLOURS.get(task.outcome, "$text")
        box.border_title = Content(f"{task.id} · {task.type} · {task.outcome}")
        took = task.elapsed(now)
        facts = [
            Content.assemble((task.description or "(no description)", "bold")),
            Content.assemble(("status ", "$text-muted"), (task.outcome, colour),
                             (f" · {format_elapsed(took)}" if took is not None else "", ""),
                             (f" · {format_tokens(task.tokens)}" if task.tokens else "", ""),
                             (f" · {task.worker}" if task.worker else "", "")),
            Content.assemble(("depends on ", "$text-muted"), ", ".join(task.dependencies) or "nothing"),
            Content.assemble(("needed by ", "$text-muted"), ", ".join(self.model.dependents(task.id)) or "nothing"),
        ]
        if task.error:
            facts.append(Content.assemble(("error ", "$text-muted"), (task.error, "$error")))
        facts.extend(Content.assemble(("note ", "$text-muted"), note) for note in task.notes)
        self.query_one("#details-facts", Static).update(Content("\n").join(facts))
        lines = [line for attempt in task.attempts for line in attempt_lines(attempt, now)]
        self.query_one("#details-attempts", Static).update(Content("\n").join(lines) if lines else Content("not started"))
        result = task.result or ("_(no result yet)_" if task.status in ("PENDING", "RUNNING") else "_(no result)_")
        if result != self._shown_result:
            self._shown_result = result
            self.query_one("#details-result", Markdown).update(result)

    def action_close(self) -> None:
        self.dismiss()
