"""/resume: the interrupted /plan and /team runs of this workspace, newest
first, each with its goal, mode, progress and when and why it stopped.
Enter resumes the selected run; ``e`` opens the plan review on it first
(its finished tasks marked); Esc closes."""

from __future__ import annotations

import time
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from paicli_tui.records.resume_state import ResumeState

HINT = "enter resume · e edit the plan, then resume · ↑↓ choose · esc close"
GOAL_CHARS = 40


def _when(epoch: float, fmt: str = "%Y-%m-%d %H:%M") -> str:
    return time.strftime(fmt, time.localtime(epoch)) if epoch else "?"


def _cut(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def row(state: ResumeState) -> Content:
    return Content.assemble((f"/{state.kind:<4} ", "bold"), (f"{state.progress:<9} ", "$success"),
                            (f"{_cut(state.goal, GOAL_CHARS):<{GOAL_CHARS}}", ""), (f"  {_when(state.stopped_at, '%m-%d %H:%M')}", "$text-muted"))


def detail(state: ResumeState) -> str:
    lines = [f"{state.goal}", "",
             f"session {state.session} · /{state.kind} · {state.progress}",
             f"stopped {_when(state.stopped_at)}: {state.stopped}"]
    if state.kept:
        lines.append(f"kept (not run again): {', '.join(state.kept)}")
    if state.redone:
        lines.append(f"run again from their base: {', '.join(state.redone)}")
    if state.executor and state.executor != "local":
        lines.append(f"its tasks ran on {state.executor}: they go on there")
    if state.turns:
        lines.append(f"spent so far: {state.tokens:,} tokens in {state.turns} model calls")
    return "\n".join(lines)


class ResumePicker(Screen["tuple[str, ResumeState] | None"]):
    """Dismissed with ("resume" | "edit", the run), or None."""

    CSS_PATH = Path(__file__).with_name("picker.tcss")
    BINDINGS = [
        Binding("enter", "choose('resume')", "Resume", id="resume.run", priority=True),
        Binding("e", "choose('edit')", "Edit, then resume", id="resume.edit"),
        Binding("escape,q", "close", "Close", id="resume.close"),
    ]

    def __init__(self, runs: list[ResumeState]) -> None:
        super().__init__(id="resume-picker")
        self.runs = runs

    def compose(self) -> ComposeResult:
        count = len(self.runs)
        yield Static(f"Interrupted runs of this workspace ({count}), newest first", id="resume-title")
        yield OptionList(*(Option(row(state), id=str(i)) for i, state in enumerate(self.runs)), id="resume-runs")
        yield Static(id="resume-detail")
        yield Static(Content.styled(HINT, "$text-muted"), id="resume-hints")

    def on_mount(self) -> None:
        runs = self.query_one(OptionList)
        runs.border_title = "Runs"
        self.query_one("#resume-detail").border_title = "What resuming does"
        runs.highlighted = 0 if self.runs else None
        runs.focus()
        self._show(0)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show(event.option_index)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(("resume", self.runs[event.option_index]))

    def _show(self, index: int) -> None:
        if 0 <= index < len(self.runs):
            self.query_one("#resume-detail", Static).update(detail(self.runs[index]))

    def _selected(self) -> ResumeState | None:
        index = self.query_one(OptionList).highlighted
        return self.runs[index] if index is not None and 0 <= index < len(self.runs) else None

    def action_choose(self, how: str) -> None:
        state = self._selected()
        if state is not None:
            self.dismiss((how, state))

    def action_close(self) -> None:
        self.dismiss(None)
