"""One worker's live output on the run screen (P-7.3, P-7.6).

A scrolling column of entries (``pane_entries.py``) fed once per frame with
that frame's ``pane_ops``: streamed text grows the open block (Markdown for
an answer, dimmed text for a thought), everything else adds an entry. The
pane is anchored to its end, so it follows the tail — through new text, a
resize, the summary appearing, a zoom — until the person scrolls up, and
again once they scroll back down. It is bounded: beyond ``max_entries`` the
oldest entries go, and a reader scrolled up keeps their place.
"""

from __future__ import annotations

from typing import Iterable

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widget import Widget

from paicli_tui.ui.run import pane_ops as ops
from paicli_tui.ui.run.pane_entries import (
    AnswerBlock,
    CheckCard,
    Notice,
    ReportCard,
    StepHeading,
    StructuredBlock,
    ThoughtBlock,
    ToolEntry,
    VerdictCard,
)

MAX_ENTRIES = 400

TextBlock = AnswerBlock | ThoughtBlock | StructuredBlock


class WorkerPane(VerticalScroll, can_focus=True):
    ALLOW_MAXIMIZE = True

    def __init__(self, worker: str, *, max_entries: int = MAX_ENTRIES, id: str | None = None) -> None:
        super().__init__(id=id, classes="worker-pane")
        self.worker = worker
        self.max_entries = max(1, max_entries)
        self._blocks: dict[int, TextBlock] = {}
        self._tools: dict[str, ToolEntry] = {}
        self.set_title(f"{worker} · idle")

    # -- public -------------------------------------------------------------------

    def set_title(self, title: str) -> None:
        self.border_title = Content(title)

    @property
    def entries(self) -> list[Widget]:
        return list(self.query_children(".entry"))

    @property
    def text(self) -> str:
        """Everything the pane says, one entry per line group (tests read it)."""
        return "\n".join(entry.plain for entry in self.entries)  # type: ignore[attr-defined]

    @property
    def following(self) -> bool:
        """True while the pane follows its tail (or all of it is in view)."""
        if not self.is_anchored:
            return self.max_scroll_y <= 0
        return not self._anchor_released

    def _sync_anchor(self) -> None:
        """Anchor to the end once the entries overflow the pane; while they
        fit, stay unanchored (an anchored pane that is not full would push
        its few lines to the bottom)."""
        if self.max_scroll_y > 0:
            if not self.is_anchored:
                self.anchor()
        elif self.is_anchored:
            self.anchor(False)
            self.scroll_to(y=0, animate=False, immediate=True, release_anchor=False)

    def on_resize(self) -> None:
        self.call_after_refresh(self._sync_anchor)

    def watch_virtual_size(self) -> None:
        # The entries' height changed in a layout pass: decide once it is over.
        self.call_later(self._sync_anchor)

    async def write(self, frame_ops: Iterable[ops.PaneOp]) -> None:
        """Show one frame's ops: at most one mount and one append per block."""
        new: list[Widget] = []
        grown: dict[int, list[str]] = {}
        for op in frame_ops:
            match op:
                case ops.TextOp():
                    block = self._blocks.get(op.block)
                    if block is None:
                        block = self._blocks[op.block] = self._text_block(op.kind)
                        new.append(block)
                    grown.setdefault(op.block, []).append(op.text)
                case ops.ReleaseOp():
                    block = self._blocks.get(op.block)
                    if isinstance(block, StructuredBlock):
                        block.release()
                case ops.StepOp():
                    new.append(StepHeading(op))
                case ops.ToolOp():
                    entry = self._tools[op.call_id] = ToolEntry(op)
                    new.append(entry)
                case ops.ToolDoneOp():
                    tool = self._tools.pop(op.call_id, None)
                    if tool is not None:
                        tool.finished(op)
                case ops.ReportOp():
                    self._settle(op.block)
                    new.append(ReportCard(op))
                case ops.VerdictOp():
                    self._settle(op.block)
                    new.append(VerdictCard(op))
                case ops.CheckOp():
                    new.append(CheckCard(op))
                case ops.NoticeOp():
                    new.append(Notice(op))
        if new:
            await self.mount_all(new)
        for number, parts in grown.items():
            block = self._blocks.get(number)
            if block is not None:
                await block.append("".join(parts))
        await self._prune()

    # -- inside -------------------------------------------------------------------

    @staticmethod
    def _text_block(kind: str) -> TextBlock:
        if kind == "reasoning":
            return ThoughtBlock()
        if kind in ("report", "verdict"):
            return StructuredBlock(kind)
        return AnswerBlock()

    def _settle(self, number: int) -> None:
        block = self._blocks.get(number)
        if isinstance(block, StructuredBlock):
            block.settle()

    async def _prune(self) -> None:
        entries = self.entries
        excess = len(entries) - self.max_entries
        if excess <= 0:
            return
        gone = entries[:excess]
        height = sum(entry.outer_size.height for entry in gone)
        keep_place = not self.following
        await self.remove_children(gone)
        gone_ids = {id(entry) for entry in gone}
        self._blocks = {n: b for n, b in self._blocks.items() if id(b) not in gone_ids}
        self._tools = {c: t for c, t in self._tools.items() if id(t) not in gone_ids}
        if keep_place and height:
            # What the person is reading moved up by the height removed above it.
            self.scroll_to(y=max(0, self.scroll_y - height), animate=False, immediate=True, release_anchor=False)
