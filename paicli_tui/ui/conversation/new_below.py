"""The one-line marker under the transcript saying that entries arrived
below while the person had scrolled up; a click (or Ctrl+End) goes there."""

from __future__ import annotations

from textual import events
from textual.content import Content
from textual.widgets import Static


class NewBelow(Static):
    DEFAULT_CSS = """
    NewBelow {
        height: 1;
        width: 1fr;
        display: none;
        content-align: center middle;
        background: $accent 30%;
        color: $text;
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(Content("↓ new below · Ctrl+End goes there"), **kwargs)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        transcript = getattr(self.screen, "transcript", None)
        if transcript is not None:
            transcript.follow()
