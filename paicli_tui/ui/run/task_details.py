"""One task in full (Enter or ``d`` on the tree or the summary): what it
was asked, where it sits in the plan, who ran it, every attempt with its
report and verdict, its tokens and time, with isolation the files it
changed as a coloured diff against its base (read from the shadow
repository off the UI thread), and its whole result as Markdown.
It stays live: the run screen tells it when its task changed, and its times
tick with the run's clock (recorded times in a replay)."""

from __future__ import annotations

from typing import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static
from textual.worker import Worker, WorkerState

from paicli_tui.present.figures import format_changes, format_elapsed, format_tokens, merge_word
from paicli_tui.ui.run.diff_view import diff_lines
from paicli_tui.ui.run.run_model import RunModel
from paicli_tui.ui.run.run_summary import OUTCOME_COLOURS
from paicli_tui.records.run_views import AttemptView


def attempt_lines(attempt: AttemptView, now: float, *, held: bool = False) -> list[Content]:
    """``held``: the attempt's work waits on a merge conflict (its outcome is not known yet)."""
    took = format_elapsed(attempt.duration(now))
    outcome = "in conflict" if held and attempt.outcome == "running" else attempt.outcome
    colour = OUTCOME_COLOURS.get(attempt.outcome, "$accent") if attempt.outcome != "rejected" else "$warning"
    colour = "$warning" if outcome == "in conflict" else colour
    head = Content.assemble(
        (f"attempt {attempt.number}", "bold"),
        f" · {attempt.worker} · {took}",
        (f" · {format_tokens(attempt.tokens)}" if attempt.tokens else "", ""),
        (f" · {outcome}", colour),
    )
    lines = [head]
    lines += receipt_lines(attempt)
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


def receipt_lines(attempt: AttemptView) -> list[Content]:
    """What paicli saw the attempt do: its tool calls, commands and check."""
    lines: list[Content] = []
    receipts, check = attempt.receipts, attempt.check
    if receipts is not None:
        flags = "".join(f" · ⚠ {flag}" for flag in receipts.flags)
        calls = f"  {receipts.tool_calls} tool call{'s' if receipts.tool_calls != 1 else ''}"
        lines.append(Content.assemble(calls, (flags, "$warning")))
        lines.extend(Content(f"    $ {command}") for command in receipts.commands)
    if check is not None:
        ended = {"timeout": "timed out", "cancelled": "cancelled", "error": "could not start"}.get(
            check.stopped, f"exit {check.exit_code}")
        mark, colour = ("✓ check passed", "$success") if check.passed else ("✗ check failed", "$error")
        lines.append(Content.assemble("  ", (mark, colour), f" · {ended} · {check.duration_s:.1f} s · $ {check.command}"))
        if not check.passed:
            lines.extend(Content(f"    {line}") for line in check.output_tail.splitlines()[-10:])
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

    def __init__(self, model: RunModel, task_id: str, *,
                 diff_source: Callable[[str, str], str | None] | None = None) -> None:
        super().__init__()
        self.model = model
        self.task_id = task_id
        #: Reads the diff between two commits (base, result); None when unknown.
        self.diff_source = diff_source
        self._shown_result: str | None = None
        self._diff_of: tuple[str, str] | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="details"):
            yield Static(id="details-facts")
            yield Static("Attempts", classes="section", id="details-attempts-title")
            yield Static(id="details-attempts")
            yield Static("Changes", classes="section", id="details-changes-title")
            yield Static(id="details-changes")
            yield Static("Result", classes="section", id="details-result-title")
            yield Markdown(id="details-result")

    def on_mount(self) -> None:
        self.query_one("#details").border_subtitle = Content("[Esc/q/Enter] close · ↑↓ scroll")
        self.refresh_details()
        self.query_one("#details").focus()

    def refresh_details(self) -> None:
        """Show the task as the model has it now."""
        if not self.query("#details-facts"):  # pushed, not composed yet: on_mount shows it
            return
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
        if task.status == "CONFLICT":
            files = ", ".join(task.conflict_files) or "its files"
            facts.append(Content.assemble(("conflict ", "$text-muted"), (f"≠ {files}", "$warning bold"),
                                          " · its change clashes with work merged before it; waiting for your decision"))
        if task.error:
            facts.append(Content.assemble(("error ", "$text-muted"), (task.error, "$error")))
        facts.extend(Content.assemble(("note ", "$text-muted"), note) for note in task.notes)
        self.query_one("#details-facts", Static).update(Content("\n").join(facts))
        lines = [line for attempt in task.attempts
                 for line in attempt_lines(attempt, now, held=task.status == "CONFLICT" and attempt is task.attempts[-1])]
        self.query_one("#details-attempts", Static).update(Content("\n").join(lines) if lines else Content("not started"))
        self._show_changes(task)
        result = task.result or ("_(no result yet)_" if task.status in ("PENDING", "RUNNING") else "_(no result)_")
        if result != self._shown_result:
            self._shown_result = result
            self.query_one("#details-result", Markdown).update(result)

    def _show_changes(self, task) -> None:
        shown = task.changed is not None
        self.query_one("#details-changes-title").display = shown
        self.query_one("#details-changes").display = shown
        if not shown:
            return
        title = f"Changes · {format_changes(*task.changed)}"
        merged = merge_word(task.changed, task.merged, task.resolved)
        self.query_one("#details-changes-title", Static).update(title + (f" · {merged}" if merged else ""))
        commits = (task.base_commit, task.result_commit)
        if commits == self._diff_of or not task.changed[0]:
            if not task.changed[0]:
                self.query_one("#details-changes", Static).update(Content("the task changed no file"))
            return
        self._diff_of = commits
        if self.diff_source is None:
            self.query_one("#details-changes", Static).update(Content("(the diff is not available here)"))
            return
        self.query_one("#details-changes", Static).update(Content.styled("reading the diff…", "$text-muted"))
        source = self.diff_source
        self.run_worker(lambda: (commits, source(*commits)), thread=True, group="details-diff", exclusive=True,
                        exit_on_error=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "details-diff" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        commits, diff = event.worker.result if event.state == WorkerState.SUCCESS else (self._diff_of, None)
        if commits != self._diff_of:
            return  # a newer attempt's diff is on its way
        if diff is None:
            shown = Content.styled("the diff is no longer available (its commits are gone)", "$text-muted")
        else:
            shown = Content("\n").join(diff_lines(diff)) if diff.strip() else Content("no differences")
        self.query_one("#details-changes", Static).update(shown)

    def action_close(self) -> None:
        self.dismiss()
