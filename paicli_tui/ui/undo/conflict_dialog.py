"""The question an undo asks when files were changed since: overwrite those
changes too, keep those files as they are, or do nothing."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from paicli_tui.checkpoints.revert import FileRevert

#: What the dialog answers.
OVERWRITE, KEEP = "overwrite", "keep"


class ConflictDialog(ModalScreen[str | None]):
    CSS_PATH = Path(__file__).with_name("undo_screen.tcss")

    BINDINGS = [
        Binding("o", "answer('overwrite')", "Overwrite them too", id="undo_conflict.overwrite"),
        Binding("k", "answer('keep')", "Keep them, revert the rest", id="undo_conflict.keep"),
        Binding("escape,n", "answer('')", "Cancel", id="undo_conflict.cancel"),
    ]

    def __init__(self, conflicts: list[FileRevert], others: int) -> None:
        super().__init__()
        self.conflicts = conflicts
        self.others = others

    def compose(self) -> ComposeResult:
        count = len(self.conflicts)
        title = f"{count} file{'s were' if count != 1 else ' was'} changed after the agent changed {'them' if count != 1 else 'it'}"
        lines = [Content.assemble(("⚠ ", "$warning"), (item.path, "bold"), f" — {item.conflict}")
                 for item in self.conflicts]
        with Vertical(id="conflict-dialog"):
            yield Static(Content.styled(title, "bold"), id="conflict-title")
            yield Static(Content("\n").join(lines), id="conflict-files")
            them = "them" if count != 1 else "it"
            keep = (f"Keep {them}: revert the other {self.others} file{'s' if self.others != 1 else ''} and leave "
                    f"{'these' if count != 1 else 'this one'} as {'they are' if count != 1 else 'it is'}. "
                    if self.others else "")
            yield Static(Content.styled(f"{keep}Overwriting loses those later changes.", "$text-muted"),
                         id="conflict-hint")
            with Horizontal(id="conflict-buttons"):
                yield Button(Content(f"Overwrite {them} [o]"), variant="error", id="conflict-overwrite", compact=True)
                if self.others:
                    yield Button(Content(f"Keep {them} [k]"), variant="primary", id="conflict-keep", compact=True)
                yield Button(Content("Cancel [esc]"), id="conflict-cancel", compact=True)

    def on_mount(self) -> None:
        # Enter must never overwrite by accident: the safe answer has the focus.
        self.query_one("#conflict-keep" if self.others else "#conflict-cancel", Button).focus()

    def action_answer(self, answer: str) -> None:
        if answer == KEEP and not self.others:
            return
        self.dismiss(answer or None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        answers = {"conflict-overwrite": OVERWRITE, "conflict-keep": KEEP}
        self.dismiss(answers.get(event.button.id or ""))
