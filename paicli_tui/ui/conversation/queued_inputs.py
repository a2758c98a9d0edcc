"""Inputs typed while a turn runs: kept in order, shown just above the
prompt editor, sent one at a time as turns end. Up on an empty editor takes
the last one back to edit; a cancel (Esc, Ctrl+C) returns them all to the
editor, so nothing typed is lost and nothing runs that the person did not
see coming. Each keeps what the editor gave it (collapsed pastes, attached
files), so it is sent, or comes back, exactly as it was typed."""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.widgets import Static

#: Characters of a queued input shown on its line.
PREVIEW_CHARS = 90


def one_line(text: str, limit: int = PREVIEW_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass(frozen=True)
class QueuedInput:
    """One input as Enter sent it: ``text`` to send (pastes expanded),
    ``shown`` as the editor showed it, the ``attachments`` its ``@`` mentions
    attach and the collapsed ``pastes`` (token, text) in ``shown``."""

    text: str
    shown: str = ""
    attachments: tuple[str, ...] = ()
    pastes: tuple[tuple[str, str], ...] = ()

    @property
    def as_typed(self) -> str:
        return self.shown or self.text


class QueuedInputs(Static):
    """One muted line per queued input and a hint; hidden when empty."""

    DEFAULT_CSS = """
    QueuedInputs {
        height: auto;
        max-height: 6;
        padding: 0 2;
        color: $text-muted;
        display: none;
    }
    QueuedInputs.-queued { display: block; }
    """

    HINT = "sent when the turn ends · ↑ edits · esc cancels the turn and returns it"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.entries: list[QueuedInput] = []

    @property
    def items(self) -> list[str]:
        """The queued inputs as they were typed, oldest first."""
        return [entry.as_typed for entry in self.entries]

    def add(self, entry: QueuedInput) -> None:
        self.entries.append(entry)
        self._show()

    def pop_next(self) -> QueuedInput | None:
        """The oldest queued input, to send now."""
        if not self.entries:
            return None
        entry = self.entries.pop(0)
        self._show()
        return entry

    def pop_last(self) -> QueuedInput | None:
        """The newest queued input, to edit."""
        if not self.entries:
            return None
        entry = self.entries.pop()
        self._show()
        return entry

    def take_all(self) -> list[QueuedInput]:
        entries, self.entries = self.entries, []
        self._show()
        return entries

    def _show(self) -> None:
        self.set_class(bool(self.entries), "-queued")
        lines = [f"queued › {one_line(text)}" for text in self.items]
        if self.entries:
            lines.append(self.HINT)
        self.update(Content("\n".join(lines)))
