"""/index: builds or refreshes the code index with a progress bar. The
build runs on the knowledge engine's thread; progress arrives as events
through the pump (this screen paints them). Esc stops a running build
(what it wrote stays usable) and closes a finished one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import ProgressBar, Static

from paicli_tui import events as ev

HINT_RUNNING = "esc stop (what is indexed so far stays usable)"
HINT_DONE = "enter or esc close — search_code, /search and /graph use it"


class IndexScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_name("knowledge.tcss")

    BINDINGS = [
        Binding("escape", "stop_or_close", "Stop the index build; close once done", id="index.stop_or_close"),
        Binding("enter", "close", "Close once the build is done", show=False, id="index.close"),
    ]

    def __init__(self, knowledge, start=None) -> None:
        """``start(cancel) -> Future`` begins the build (default: the
        knowledge engine's own thread)."""
        super().__init__()
        self.knowledge = knowledge
        self._start = start or knowledge.start_index
        self.cancel = None
        self.future = None
        self.finished = False

    def compose(self) -> ComposeResult:
        with Vertical(id="knowledge-dialog", classes="short"):
            yield Static(Content.styled("Code index", "bold"), id="knowledge-title")
            yield ProgressBar(total=None, show_eta=False, id="index-progress")
            yield Static(Content.styled("listing the workspace's files…", "$text-muted"), id="index-status")
            yield Static(Content.styled(HINT_RUNNING, "$text-muted"), id="knowledge-hint")

    def on_mount(self) -> None:
        import threading

        self.cancel = threading.Event()
        try:
            self.future = self._start(self.cancel)
        except Exception as exc:  # already building, database unusable: say so, stay usable
            self._done(Content.styled(str(exc), "$error"))
            return
        self.future.add_done_callback(self._ended)

    def _ended(self, future) -> None:
        error = future.exception()
        if error is not None:  # IndexBuilt never came: tell the screen through the pump
            self.app.pump.put(IndexFailed(str(error)))

    async def paint(self, items: list[Any]) -> None:
        if self.finished or not self.is_attached:
            return
        for item in items:
            if isinstance(item, ev.IndexProgress):
                bar = self.query_one(ProgressBar)
                bar.update(total=item.total, progress=item.done)
                self.query_one("#index-status", Static).update(
                    Content.assemble(f"{item.done}/{item.total} files  ", Content.styled(item.path, "$text-muted")))
            elif isinstance(item, ev.IndexBuilt):
                self.query_one(ProgressBar).update(total=max(item.files, 1), progress=max(item.files, 1))
                self._done(Content(summary_line(item)))
            elif isinstance(item, IndexFailed):
                self._done(Content.styled(f"the index could not be built: {item.reason}", "$error"))

    def _done(self, text: Content) -> None:
        self.finished = True
        self.query_one("#index-status", Static).update(text)
        self.query_one("#knowledge-hint", Static).update(Content.styled(HINT_DONE, "$text-muted"))

    def action_stop_or_close(self) -> None:
        if not self.finished and self.cancel is not None and not self.cancel.is_set():
            self.cancel.set()
            self.query_one("#knowledge-hint", Static).update(Content.styled("stopping…", "$warning"))
            return
        self.dismiss(None)

    def action_close(self) -> None:
        if self.finished:
            self.dismiss(None)


class IndexFailed:
    def __init__(self, reason: str) -> None:
        self.reason = reason


def summary_line(built: ev.IndexBuilt) -> str:
    head = "Index up to date" if built.complete else "Stopped early; what was indexed stays usable"
    parts = [f"{built.files} files", f"{built.added} new", f"{built.changed} changed", f"{built.removed} removed"]
    if built.skipped:
        parts.append(f"{built.skipped} skipped")
    tail = f"; embeddings: {built.embeddings}" if built.embeddings != "off" else ""
    return f"{head}: {', '.join(parts)} — {built.chunks} chunks written in {built.duration_s:.1f} s{tail}"
