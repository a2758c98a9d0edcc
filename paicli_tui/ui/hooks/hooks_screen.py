"""/hooks: every configured hook, whether it may run, its last result;
``t`` agrees to run the workspace's hooks (kept for this workspace in the
config directory, never in the workspace)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from paicli_tui.present.hook_lines import EMPTY, hook_rows

if TYPE_CHECKING:
    from paicli_tui.hooks.runner import HookRunner

HINT = "t trust this workspace's hooks (remembered) · esc close · docs/hooks.md"


class HooksScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_name("hooks_screen.tcss")

    BINDINGS = [
        Binding("escape,q", "close", "Close", id="hooks.close"),
        Binding("t", "trust", "Trust workspace hooks", id="hooks.trust"),
    ]

    def __init__(self, runner: "HookRunner") -> None:
        super().__init__()
        self.runner = runner

    def compose(self) -> ComposeResult:
        with Vertical(id="hooks-dialog"):
            yield Static(id="hooks-title")
            yield OptionList(id="hooks-list")
            yield Static(Content.styled(HINT, "$text-muted"), id="hooks-hint")

    def on_mount(self) -> None:
        self._fill()

    def _fill(self) -> None:
        rows = hook_rows(self.runner)
        waiting = sum(row.waiting for row in rows)
        extra = f", {waiting} waiting for your yes" if waiting else ""
        self.query_one("#hooks-title", Static).update(
            Content.assemble(("Hooks", "bold"), (f"  {len(rows)} configured{extra}", "$text-muted")))
        options = self.query_one("#hooks-list", OptionList)
        options.clear_options()
        if not rows:
            options.add_option(Option(Content.styled(EMPTY, "italic"), disabled=True))
            return
        for row in rows:
            style = "$text-warning" if row.waiting else "$text-muted"
            options.add_option(Option(Content.assemble(
                (row.title, "bold"), "\n  ", (row.where, style), "\n  ", (row.last, "$text-muted"))))

    def action_trust(self) -> None:
        trusted = self.runner.trust(remember=True)
        self.notify(f"{len(trusted)} workspace hook(s) trusted and remembered" if trusted
                    else "no workspace hook is waiting")
        self._fill()

    def action_close(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
