"""Minimal Textual apps the benches compare paicli against.

``first-screen``: Header, Input, Footer — the least a full-screen app shows.
``markdown URL``: four ``Markdown`` widgets in a 2×2 grid, each fed through
Textual's own ``MarkdownStream`` from one streamed chat completion (the same
loopback server and stream paicli's workers read), scrolling themselves,
nothing around them; ``h`` toggles a line, for the key echo measurement.
"""

from __future__ import annotations

import json
import sys
import threading
import urllib.request

from textual.app import App, ComposeResult
from textual.containers import Grid
from textual.widgets import Footer, Header, Input, Markdown, Static


class FirstScreen(App[None]):
    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="type here")
        yield Footer()


def stream_pieces(url: str, agent: str):
    body = json.dumps({"model": "m", "stream": True, "messages": [{"role": "user", "content": "go"}]}).encode()
    request = urllib.request.Request(f"{url}/chat/completions", body, {
        "Content-Type": "application/json", "X-Paicli-Agent": agent})
    with urllib.request.urlopen(request) as response:
        for raw in response:
            line = raw.decode().strip()
            if not line.startswith("data:") or line == "data: [DONE]":
                continue
            for choice in json.loads(line[5:]).get("choices") or ():
                text = (choice.get("delta") or {}).get("content")
                if text:
                    yield text


class MarkdownPanes(App[None]):
    """The issue's reference: four ``Markdown`` widgets and nothing around
    them (no scroll containers), each fed by its own ``MarkdownStream`` and
    scrolling itself, anchored to its end so the last line shows."""

    CSS = """
    Grid { grid-size: 2 2; }
    Markdown { border: round $primary; height: 1fr; overflow-y: auto; }
    #probe { height: 1; dock: top; }
    """
    BINDINGS = [("h", "toggle_probe", "probe")]

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url

    def compose(self) -> ComposeResult:
        yield Static("PROBE-SHOWN", id="probe")
        with Grid():
            for n in range(1, 5):
                markdown = Markdown()
                markdown.border_title = f"worker-{n}"
                yield markdown

    def on_mount(self) -> None:
        for n, markdown in enumerate(self.query(Markdown), 1):
            markdown.anchor()
            stream = Markdown.get_stream(markdown)
            threading.Thread(target=self._feed, args=(stream, f"task_{n}"), daemon=True).start()

    def _feed(self, stream, agent: str) -> None:
        for piece in stream_pieces(self.url, agent):
            self.call_from_thread(stream.write, piece)

    def action_toggle_probe(self) -> None:
        probe = self.query_one("#probe")
        probe.display = not probe.display


if __name__ == "__main__":
    if sys.argv[1] == "first-screen":
        FirstScreen().run()
    else:
        MarkdownPanes(sys.argv[2]).run()
