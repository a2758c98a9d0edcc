"""The approval dialog (P-7.4): what a tool wants to do, and yes / no /
always-for-this-session. Dismissing it answers the engine thread waiting on
the request's Future (the app resolves it)."""

from __future__ import annotations

import json
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from paicli_tui.tools.approval import ApprovalRequest, Decision

PREVIEW_LINES = 400


def describe_arguments(arguments: dict) -> Content:
    """Every argument in full: commands and paths are never shortened."""
    lines = []
    for key, value in arguments.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(Content.assemble((f"{key}: ", "bold"), text))
    return Content("\n").join(lines) if lines else Content("(no arguments)")


def colour_diff(preview: str) -> Content:
    """A unified diff with added and removed lines in the theme's diff colours."""
    lines = preview.splitlines()
    shown = []
    for line in lines[:PREVIEW_LINES]:
        if line.startswith(("+++", "---")):
            shown.append(Content.styled(line, "bold"))
        elif line.startswith("+"):
            shown.append(Content.styled(line, "$diff-added"))
        elif line.startswith("-"):
            shown.append(Content.styled(line, "$diff-removed"))
        elif line.startswith("@@"):
            shown.append(Content.styled(line, "$secondary"))
        else:
            shown.append(Content(line))
    if len(lines) > PREVIEW_LINES:
        shown.append(Content.styled(f"… {len(lines) - PREVIEW_LINES} more lines", "italic"))
    return Content("\n").join(shown)


class ApprovalScreen(ModalScreen[Decision]):
    CSS_PATH = Path(__file__).with_name("approval.tcss")

    BINDINGS = [
        Binding("y", "decide('yes')", "Yes", id="approval.yes"),
        Binding("n", "decide('no')", "No", id="approval.no"),
        Binding("a", "decide('always')", "Always", id="approval.always"),
        Binding("escape", "decide('no')", "No", show=False, id="approval.escape"),
    ]

    def __init__(self, request: ApprovalRequest, queued: int = 0) -> None:
        super().__init__()
        self.request = request
        self.queued = queued

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="approval-dialog"):
            yield Static(Content.assemble(("Allow ", "bold"), (request.tool, "bold $accent"), ("?", "bold")),
                         id="approval-title")
            who = f"{request.actor} asks" if request.actor not in ("react", "") else "the agent asks"
            reason = f": {request.reason}" if request.reason else ""
            yield Static(Content(f"{who}{reason}"), id="approval-reason")
            with VerticalScroll(id="approval-body"):
                yield Static(describe_arguments(request.arguments), id="approval-arguments")
                if request.preview and request.tool in ("write_file", "edit_file"):
                    yield Static(colour_diff(request.preview), id="approval-preview")
                elif request.preview:
                    yield Static(Content(request.preview), id="approval-preview")
            if self.queued:
                yield Static(Content(f"{self.queued} more waiting"), id="approval-queued")
            with Horizontal(id="approval-buttons"):
                yield Button(Content("Yes [y]"), variant="success", id="approval-yes")
                yield Button(Content("No [n]"), variant="error", id="approval-no")
                yield Button(Content("Always for this session [a]"), variant="primary", id="approval-always")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide((event.button.id or "approval-no").removeprefix("approval-"))

    def action_decide(self, answer: str) -> None:
        self.dismiss(Decision(answer))
