"""The modal dialog every screen shares: a sized box low on the screen, the
screen behind it still visible (dimmed), Esc to close; and the yes/no
confirmation built on it."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class ModalDialog(ModalScreen):
    # A file, not DEFAULT_CSS: app.tcss gives every Screen an opaque
    # background, and only app-level CSS outranks it, so the screen behind
    # the dialog stays visible (dimmed).
    CSS_PATH = Path(__file__).with_name("dialogs.tcss")
    BINDINGS = [Binding("escape", "close", "Close", show=False, id="plan_dialog.close")]

    def action_close(self) -> None:
        self.dismiss(None)


def dialog_text(value: str) -> Static:
    # Built as Text: a hint like "[Enter]" would otherwise be read as markup.
    return Static(Text(value))


class Confirm(ModalDialog):
    """Yes (y, and Enter unless ``enter_is_yes`` is off) or no (n / Esc)."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", show=False, id="confirm.yes"),
        Binding("enter", "enter", "Yes", show=False, id="confirm.enter"),
        Binding("n,escape", "answer(False)", "No", show=False, id="confirm.no"),
    ]

    def __init__(self, question: str, hint: str = "y / Enter: yes · n / Esc: no", *, enter_is_yes: bool = True) -> None:
        super().__init__()
        self.question = question
        self.hint = hint
        # Enter runs the plan on the screen below: a prompt that loses work must not take it as yes.
        self.enter_is_yes = enter_is_yes

    def compose(self) -> ComposeResult:
        with Vertical():
            yield dialog_text(self.question).add_class("dialog-title")
            yield dialog_text(self.hint).add_class("dialog-hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def action_enter(self) -> None:
        if self.enter_is_yes:
            self.dismiss(True)
