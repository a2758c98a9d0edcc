"""Streamed answers and collapsible reasoning in the transcript, each one
``MarkdownText`` (Markdown painted as lines).

Apart from the other entries because Markdown brings its parser
(markdown-it) and the code highlighter (Pygments): the transcript imports
this module when the first answer or thought arrives, not for the first
screen."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Collapsible, Static

from paicli_tui.ui.common.markdown_text import MarkdownText


class AnswerEntry(Vertical):
    """An agent's streamed answer; non-react actors are named above it."""

    def __init__(self, actor: str) -> None:
        super().__init__()
        self.actor = actor
        self.body = MarkdownText(classes="answer")

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
        self.body = MarkdownText(classes=self.BODY_CLASS)
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
