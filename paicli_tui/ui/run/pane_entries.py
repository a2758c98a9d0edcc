"""The entries a worker pane is made of: a step heading, streamed Markdown,
a dimmed thought that folds, a one-line tool call that opens, a report card,
a verdict card, a notice.

What is folded or open follows the run screen's classes (``-fold-thinking``,
``-open-tools``, ``-raw``), so one key restyles every pane at once without
touching an entry; a click flips one entry against that. Every entry has a
``plain`` text (what it says, for tests and the pane's ``text``).
"""

from __future__ import annotations

import asyncio
import json
from functools import lru_cache

from markdown_it import MarkdownIt
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Markdown, Static

from paicli_tui.ui.run import pane_ops as ops
from paicli_tui.ui.run.plain_log import PlainLog
from paicli_tui.ui.run.text_chunks import Chunker, clean

#: Characters of a tool's result shown when its entry is open.
TOOL_DETAIL_CHARS = 4000
#: Chunks a streamed block keeps (its oldest are dropped beyond, like a bounded log).
MAX_CHUNKS = 100
#: Characters of one frame's text rendered as Markdown at once (see AnswerBlock).
MARKDOWN_BUDGET = 1500


@lru_cache(maxsize=1)
def shared_parser() -> MarkdownIt:
    """One Markdown parser for every pane chunk: Textual builds a new one
    per append unless given a factory, and building one compiles its rules
    (a parse holds no state, so one serves all)."""
    return MarkdownIt("gfm-like")


def markdown_chunk() -> Markdown:
    return Markdown(classes="chunk", parser_factory=shared_parser)


def _tail_pieces(pieces: list[str], budget: int) -> int:
    """How many of the last ``pieces`` fit in ``budget`` characters (at least one)."""
    total, count = 0, 0
    for piece in reversed(pieces):
        total += len(piece)
        if count and total > budget:
            break
        count += 1
    return count


class AnswerBlock(Vertical):
    """An answer streamed as Markdown, in chunks (see text_chunks.py) so a
    frame re-reads one chunk, not the whole answer.

    Markdown costs a parse, a wrap and new widgets per block (a few ms per
    kilobyte here), so a burst — a frame that brings more than
    ``MARKDOWN_BUDGET`` characters — goes into a ``PlainLog`` instead, and
    so does what follows until the pane is idle; then ``render_deferred``
    renders it as Markdown, newest first. A model streaming at any human
    pace never bursts: its answer is Markdown as it arrives."""

    DEFAULT_CSS = "AnswerBlock { height: auto; }"

    def __init__(self) -> None:
        super().__init__(classes="entry answer")
        self.chunker = Chunker(markdown=True)
        self._chunks: list[tuple[Widget, str]] = []  # (Markdown or PlainLog, its text)
        self.plain = ""
        # An append and an idle render both await mounts: one at a time.
        self._busy = asyncio.Lock()

    async def append(self, text: str) -> None:
        text = clean(text)
        if not text:
            return
        self.plain += text
        async with self._busy:
            await self._append(text)

    async def _append(self, text: str) -> None:
        last = self._chunks[-1][0] if self._chunks else None
        if isinstance(last, PlainLog) or len(text) > MARKDOWN_BUDGET:
            if isinstance(last, PlainLog):
                await self._grow(len(self._chunks) - 1, text)
            else:
                self._chunks.append((PlainLog(text, classes="chunk -deferred"), text))
                await self.mount(self._chunks[-1][0])
            return
        pieces = self.chunker.split(text)
        cut_inside = list(self.chunker.mid_paragraph)
        first, *rest = pieces
        if not self._chunks:
            first, rest, cut_inside = "", pieces, [False, *cut_inside]
        if first:
            await self._grow(len(self._chunks) - 1, first)
        if rest:
            new = [markdown_chunk() for _ in rest]
            # A paragraph cut at a line end runs on into the next chunk: no gap.
            before = [self._chunks[-1][0] if self._chunks else None, *new[:-1]]
            for widget, inside in zip(before, cut_inside):
                if inside and widget is not None:
                    widget.add_class("-runs-on")
            self._chunks.extend((widget, "") for widget in new)
            await self.mount_all(new)
            for offset, piece in enumerate(rest):
                await self._grow(len(self._chunks) - len(rest) + offset, piece)
        excess = len(self._chunks) - MAX_CHUNKS
        if excess > 0:
            gone = [widget for widget, _ in self._chunks[:excess]]
            del self._chunks[:excess]
            await self.remove_children(gone)

    async def _grow(self, index: int, text: str) -> None:
        widget, shown = self._chunks[index]
        self._chunks[index] = (widget, shown + text)
        if isinstance(widget, Markdown):
            if not widget.is_attached:  # the screen is going away: its mount was dropped
                return
            await widget.append(text)
        elif isinstance(widget, PlainLog):
            widget.append(text)

    @property
    def deferred(self) -> bool:
        return any(isinstance(widget, PlainLog) for widget, _ in self._chunks)

    async def render_deferred(self, budget: int) -> int:
        """Render held text as Markdown, newest first, about ``budget``
        characters; returns the characters rendered."""
        async with self._busy:
            index = next((i for i in range(len(self._chunks) - 1, -1, -1) if isinstance(self._chunks[i][0], PlainLog)), None)
            if index is None or not self.is_attached:
                return 0
            log, text = self._chunks[index]
            chunker = Chunker(markdown=True)
            pieces = [piece for piece in chunker.split(text) if piece]
            count = _tail_pieces(pieces, budget)
            head, tail = "".join(pieces[: len(pieces) - count]), pieces[len(pieces) - count :]
            rendered = [markdown_chunk() for _ in tail]
            await self.mount_all(rendered, after=log)
            if not all(widget.is_mounted for widget in rendered):  # the pane is going away
                return 0
            if index == len(self._chunks) - 1:
                self.chunker = chunker  # the stream goes on from the end of what was held
            replaced = [(widget, "") for widget in rendered]
            if head:
                log.replace(head)
                self._chunks[index] = (log, head)
                self._chunks[index + 1 : index + 1] = replaced
                first = index + 1
            else:
                self._chunks[index : index + 1] = replaced
                await log.remove()
                first = index
            for offset, piece in enumerate(tail):
                await self._grow(first + offset, piece)
            return sum(len(piece) for piece in tail)


class ThoughtBlock(Vertical):
    """Reasoning: dimmed, and folded to one line under ``-fold-thinking``."""

    DEFAULT_CSS = "ThoughtBlock { height: auto; }"

    def __init__(self) -> None:
        super().__init__(classes="entry thought")
        self.fold = Static(classes="fold")
        self.body = PlainLog(classes="body")
        self.words = 0

    def compose(self) -> ComposeResult:
        yield self.fold
        yield self.body

    async def append(self, text: str) -> None:
        text = clean(text)
        self.body.append(text)
        self.words += len(text.split())
        self.fold.update(Content(f"▸ thinking · {self.words} words (click or t to show)"))

    def on_click(self) -> None:
        self.toggle_class("-flipped")

    @property
    def plain(self) -> str:
        return self.body.text


class StructuredBlock(Vertical):
    DEFAULT_CSS = "StructuredBlock { height: auto; }"
    """A report or verdict being written: one line while it streams, the raw
    JSON only in the raw view; shown as text if it was not one after all."""

    def __init__(self, what: str) -> None:
        super().__init__(classes="entry structured")
        self.what = what
        self.raw = ""
        self.line = Static(Content(f"… writing the {what}"), classes="line")
        self.raw_view = Static(classes="raw")

    def compose(self) -> ComposeResult:
        yield self.line
        yield self.raw_view

    async def append(self, text: str) -> None:
        self.raw += clean(text)
        self.line.update(Content(f"… writing the {self.what} · {len(self.raw)} characters"))
        self.raw_view.update(Content(self.raw))

    def settle(self) -> None:
        self.add_class("-settled")

    def release(self) -> None:
        self.add_class("-released")

    @property
    def plain(self) -> str:
        return self.raw


class StepHeading(Static):
    def __init__(self, op: ops.StepOp) -> None:
        text = f"▶ {op.task_id} · attempt {op.attempt}" + (f" · {op.description}" if op.description else "")
        super().__init__(Content(text), classes="entry heading")
        self.plain = text


class Notice(Static):
    def __init__(self, op: ops.NoticeOp) -> None:
        super().__init__(Content(op.text), classes=f"entry notice -{op.kind}")
        self.plain = op.text


class ToolEntry(Vertical):
    DEFAULT_CSS = "ToolEntry { height: auto; }"
    """``→ tool subject · ✓ summary`` on one line; its arguments and result
    below it when open (a click, or ``o`` for all)."""

    def __init__(self, op: ops.ToolOp) -> None:
        super().__init__(classes="entry tool -running")
        self.op = op
        self.outcome = "…"
        self.details = ""
        self.line = Static(self._line(), classes="line")
        self.details_view = Static(Content(self._arguments()), classes="details")

    def compose(self) -> ComposeResult:
        yield self.line
        yield self.details_view

    def _line(self) -> Content:
        head = f"→ {self.op.tool} {self.op.subject}".rstrip()
        return Content(f"{head} · {self.outcome}")

    def _arguments(self) -> str:
        try:
            shown = json.dumps(json.loads(self.op.arguments), indent=2, ensure_ascii=False)
        except (ValueError, TypeError):
            shown = self.op.arguments
        text = f"arguments:\n{clean(shown)}"
        return f"{text}\nresult:\n{self.details}" if self.details else text

    def finished(self, op: ops.ToolDoneOp) -> None:
        self.outcome = f"{'✓' if op.ok else '✗'} {op.summary}".rstrip()
        content = clean(op.content)
        self.details = content[:TOOL_DETAIL_CHARS] + ("…" if len(content) > TOOL_DETAIL_CHARS else "")
        self.remove_class("-running")
        self.add_class("-ok" if op.ok else "-failed")
        self.line.update(self._line())
        self.details_view.update(Content(self._arguments()))

    def on_click(self) -> None:
        self.toggle_class("-flipped")

    @property
    def plain(self) -> str:
        return self._line().plain


def _raw_text(raw: str) -> str:
    try:
        return json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
    except (ValueError, TypeError):
        return raw


class ReportCard(Vertical):
    DEFAULT_CSS = "ReportCard { height: auto; }"
    """A worker's report: a status badge, the reason when it is blocked or
    invalid, the result rendered."""

    def __init__(self, op: ops.ReportOp) -> None:
        super().__init__(classes=f"entry card report -{op.status}")
        self.op = op
        glyph = {"completed": "✓", "blocked": "■"}.get(op.status, "✗")
        self.border_title = Content(f"{glyph} report · {op.status}")
        self.border_subtitle = Content(f"{op.step_id} · attempt {op.attempt}")

    def compose(self) -> ComposeResult:
        op = self.op
        if op.reason:
            label = "could not be read" if op.status == "invalid" else "reason"
            yield Static(Content(f"{label}: {clean(op.reason)}"), classes="reason")
        if op.result and op.status != "invalid":
            yield Markdown(clean(op.result), classes="result")
        yield Static(Content(_raw_text(op.raw or op.result)), classes="raw")

    @property
    def plain(self) -> str:
        return "\n".join(p for p in (str(self.border_title), self.op.reason, self.op.result) if p)


class VerdictCard(Vertical):
    DEFAULT_CSS = "VerdictCard { height: auto; }"
    """A reviewer's verdict: approved or rejected, its summary, the issues
    as a list, an approval's notes."""

    def __init__(self, op: ops.VerdictOp) -> None:
        state = "approved" if op.approved else "rejected"
        super().__init__(classes=f"entry card verdict -{state}")
        self.op = op
        self.border_title = Content(f"{'✓' if op.approved else '✗'} {state} · {op.reviewer}")
        self.border_subtitle = Content(f"{op.step_id} · attempt {op.attempt}")

    def compose(self) -> ComposeResult:
        op = self.op
        feedback = clean(op.feedback).strip()
        if op.summary:
            yield Static(Content(clean(op.summary)), classes="summary")
        if feedback and feedback != op.summary.strip():
            yield Markdown(feedback, classes="issues")
        if op.notes:
            yield Markdown("notes:\n" + "\n".join(f"- {clean(note)}" for note in op.notes), classes="notes")
        yield Static(Content(_raw_text(op.raw)), classes="raw")

    @property
    def plain(self) -> str:
        parts = [str(self.border_title), self.op.summary, self.op.feedback, *self.op.notes]
        return "\n".join(p for p in parts if p)


def warm_up_entries() -> list[Widget]:
    """One entry of every kind, with the Markdown blocks an answer usually
    has: mounted once, hidden, so their CSS is read before a run streams."""
    return [
        Markdown("warm *up*\n\n## b\n\n- `c`\n\n```\nd\n```"),
        AnswerBlock(),
        ThoughtBlock(),
        StructuredBlock("report"),
        StepHeading(ops.StepOp("t", 1, "")),
        Notice(ops.NoticeOp("review", "")),
        ToolEntry(ops.ToolOp("c", "t", "", "{}")),
        ReportCard(ops.ReportOp("t", 1, "completed", "r", "")),
        VerdictCard(ops.VerdictOp("r", "t", 1, False, "s", "- i", ("n",))),
    ]
