"""One line above the input while MCP servers start: which ones, and for
how long (a server can take seconds, and the tools it brings are not there
until it is ready). Hidden otherwise; its clock ticks only while shown, so
an idle app runs no timer for it."""

from __future__ import annotations

import time
from typing import Callable, Iterable

from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

STARTING = "starting"


def progress_text(started: dict[str, float], now: float) -> str:
    """``MCP starting: docs 3 s · search 1 s`` (servers in the order they began)."""
    parts = [f"{name} {max(0, int(now - since))} s" for name, since in started.items()]
    return "MCP starting: " + " · ".join(parts) + " — their tools come when ready (/mcp shows each)"


class McpProgress(Static):
    DEFAULT_CSS = """
    McpProgress {
        height: 1;
        padding: 0 2;
        color: $text-muted;
        display: none;
    }
    """

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.clock = clock
        #: Server name → when it was seen starting.
        self.started: dict[str, float] = {}
        self._ticker: Timer | None = None

    def server_changed(self, server: str, state: str) -> None:
        """A server's new state (from its event or from the manager's snapshot)."""
        if state == STARTING:
            self.started.setdefault(server, self.clock())
        else:
            self.started.pop(server, None)
        self._show()

    def seed(self, states: Iterable[tuple[str, str]]) -> None:
        """The states as the session found them when the screen got it:
        servers that began before anyone listened still show."""
        for server, state in states:
            self.server_changed(server, state)

    def _show(self) -> None:
        shown = bool(self.started)
        if shown:
            self.update(Content.styled(progress_text(self.started, self.clock()), "$text-muted"))
            if self._ticker is None:
                self._ticker = self.set_interval(1.0, self._show)
        elif self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        self.display = shown
