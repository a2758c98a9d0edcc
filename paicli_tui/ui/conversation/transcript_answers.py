"""Streamed answers and collapsible reasoning in the transcript.

Apart from the other entries because Textual's Markdown brings its parser
(markdown-it) and the code highlighter (Pygments): the transcript imports
this module when the first answer or thought arrives, not for the first
screen."""

from __future__ import annotations

import asyncio

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Collapsible, Markdown, Static


class StreamedMarkdown(Markdown):
    """Markdown that grows by ``Markdown.append`` (Textual's streaming path:
    only the last block is re-parsed), never re-rendered from the start.

    ``write`` returns at once; one background task appends whatever piled up
    while the previous append ran, so a slow parse merges writes instead of
    queueing them.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._pending: list[str] = []
        self._writer: asyncio.Task | None = None
        self.finished = False

    def write(self, text: str) -> None:
        if self.finished or not text:
            return
        self._pending.append(text)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._append_pending())

    async def _append_pending(self) -> None:
        while self._pending and self.is_attached:
            text = "".join(self._pending)
            self._pending.clear()
            await self.append(text)

    async def settle(self) -> None:
        """Wait until everything written so far is on screen."""
        while self._writer is not None and not self._writer.done():
            await self._writer

    async def finish(self) -> None:
        self.finished = True
        await self.settle()


class AnswerEntry(Vertical):
    """An agent's streamed answer; non-react actors are named above it."""

    def __init__(self, actor: str) -> None:
        super().__init__()
        self.actor = actor
        self.body = StreamedMarkdown(classes="answer")

    def compose(self) -> ComposeResult:
        if self.actor != "react":
            yield Static(Content(self.actor), classes="actor")
        yield self.body

    async def finish(self) -> None:
        await self.body.finish()


class FoldingEntry(Collapsible):
    """Streamed text shown open while it arrives and folded once complete."""

    STREAMING = "…"
    DONE = ""
    BODY_CLASS = ""

    def __init__(self, actor: str) -> None:
        self.actor = actor
        self.body = StreamedMarkdown(classes=self.BODY_CLASS)
        super().__init__(self.body, title=self._heading(self.STREAMING), collapsed=False)

    def _heading(self, text: str) -> Content:
        who = "" if self.actor == "react" else f"{self.actor} "
        return Content(f"{who}{text}")

    async def finish(self) -> None:
        await self.body.finish()
        self.title = self._heading(self.DONE)
        self.collapsed = True


class ReasoningEntry(FoldingEntry):
    """The model's thinking, dimmed."""

    STREAMING = "thinking…"
    DONE = "thought"
    BODY_CLASS = "reasoning"
