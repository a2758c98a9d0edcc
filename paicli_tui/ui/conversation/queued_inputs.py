"""Inputs typed while a turn runs: kept in order, shown just above the input
line, sent one at a time as turns end. Up on an empty input takes the last
one back to edit; a cancel (Esc, Ctrl+C) returns them all to the input, so
nothing typed is lost and nothing runs that the person did not see coming."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

#: Characters of a queued input shown on its line.
PREVIEW_CHARS = 90


def one_line(text: str, limit: int = PREVIEW_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


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
        self.items: list[str] = []

    def add(self, text: str) -> None:
        self.items.append(text)
        self._show()

    def pop_next(self) -> str | None:
        """The oldest queued input, to send now."""
        if not self.items:
            return None
        text = self.items.pop(0)
        self._show()
        return text

    def pop_last(self) -> str | None:
        """The newest queued input, to edit."""
        if not self.items:
            return None
        text = self.items.pop()
        self._show()
        return text

    def take_all(self) -> list[str]:
        items, self.items = self.items, []
        self._show()
        return items

    def _show(self) -> None:
        self.set_class(bool(self.items), "-queued")
        lines = [f"queued › {one_line(text)}" for text in self.items]
        if self.items:
            lines.append(self.HINT)
        self.update(Content("\n".join(lines)))
