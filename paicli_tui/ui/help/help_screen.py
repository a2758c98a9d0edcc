"""The help (``/help``, F1, ``?`` on an empty input): every key of every
screen grouped by screen, the slash commands and the focus order. The keys
are generated from the bindings (key_table.py). It scrolls; Esc or q closes."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from paicli_tui.ui.conversation.slash_commands import COMMANDS
from paicli_tui.ui.help.key_table import FOCUS_ORDER, key_groups

KEY_COLUMN = 22


def _rows(rows: list[tuple[str, str]]) -> Content:
    lines = [Content.assemble((keys.ljust(KEY_COLUMN), "bold"), " ", text) for keys, text in rows]
    return Content("\n").join(lines)


def command_rows() -> list[tuple[str, str]]:
    rows = []
    for name, spec in COMMANDS.items():
        hint, text = spec[0], spec[1]
        rows.append((f"{name} {hint}".rstrip(), text))
    return rows


class HelpScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_name("help.tcss")

    BINDINGS = [
        Binding("escape,q,f1", "close", "Close the help", id="help.close"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            yield Static(Content("paicli help · ↑ ↓ PgUp PgDn scroll · Esc or q closes"), id="help-title")
            with VerticalScroll(id="help-body"):
                yield Static(Content("Slash commands"), classes="help-group")
                yield Static(_rows(command_rows()), classes="help-rows")
                yield Static(Content("Focus order"), classes="help-group")
                yield Static(Content("\n".join(FOCUS_ORDER)), classes="help-rows")
                for group, rows in key_groups().items():
                    yield Static(Content(f"Keys · {group}"), classes="help-group")
                    yield Static(_rows([(row.keys, row.description) for row in rows]), classes="help-rows")

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def help_text(self) -> str:
        """Everything shown, as plain text (for tests and copying)."""
        return "\n".join(str(static.render()) for static in self.query(Static))
