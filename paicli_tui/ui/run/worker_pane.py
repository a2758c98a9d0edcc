"""One worker's live output on the run screen (P-7.3, P-7.6).

One scrolling view that paints lines (the Line API): the pane keeps its
entries (``pane_entries.py``) as data, in the order they happened, and
draws each as cached strips. A frame's ``pane_ops`` change the entries and
ask for a repaint; the strips are rebuilt at most ``FRAMES_PER_S`` times a
second, only for entries that changed, and only while the pane is shown —
a hidden pane (zoomed out, a strip row, another screen on top) just keeps
its entries. A growing pane changes its own scroll height, never the
screen's layout; a resize draws every entry again from its text.

The pane follows its tail until the person scrolls up, and again once they
scroll back to the end. Beyond ``max_entries`` the oldest entries go; a
reader scrolled up keeps their place.
"""

from __future__ import annotations

import bisect
import time
from typing import Iterable

from textual import events
from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from paicli_tui.ui.run import pane_ops as ops
from paicli_tui.ui.common.markdown_strips import BlockStyles, widget_strips
from paicli_tui.ui.run.pane_entries import (
    AnswerBlock,
    CheckCard,
    Entry,
    Notice,
    ReportCard,
    StepHeading,
    StructuredBlock,
    ThoughtBlock,
    ToolEntry,
    VerdictCard,
    View,
)

MAX_ENTRIES = 400
#: Most repaints of a streaming pane per second.
FRAMES_PER_S = 30
#: A repaint this close to due is done at once rather than on a timer.
DUE_EARLY_S = 0.2 / FRAMES_PER_S

TextBlock = AnswerBlock | ThoughtBlock | StructuredBlock

#: Component class (``worker-pane--NAME``) → the name entries ask ``View.style`` for.
_STYLE_NAMES = (
    "heading", "thought", "muted", "warning", "card-title",
    "tool-running", "tool-ok", "tool-failed",
    "card-completed", "card-approved", "card-blocked", "card-rejected", "card-invalid", "card-passed", "card-failed",
    "notice-review", "notice-retry", "notice-completed", "notice-failed", "notice-error",
    "notice-blocked", "notice-cancelled", "notice-warning",
    "md-heading", "md-code", "md-fence", "md-quote", "md-link",
)


class WorkerPane(ScrollView, can_focus=True):
    ALLOW_MAXIMIZE = True
    COMPONENT_CLASSES = {f"worker-pane--{name}" for name in _STYLE_NAMES}

    def __init__(self, worker: str, *, max_entries: int = MAX_ENTRIES, id: str | None = None) -> None:
        super().__init__(id=id, classes="worker-pane")
        self.worker = worker
        self.max_entries = max(1, max_entries)
        self.entries: list[Entry] = []
        self._blocks: dict[int, TextBlock] = {}
        self._tools: dict[str, ToolEntry] = {}
        self._cache: dict[int, tuple[tuple, list[Strip]]] = {}  # id(entry) → (key, strips) at this width
        self._other_width: tuple[int, dict] = (0, {})  # the previous width's cache (a toggled tree flips back)
        self._rows: list[Strip] = []
        self._starts: list[int] = []  # first row of each entry
        self._rows_width = -1
        self._stale = True
        self._incomplete = False  # some entries left rows undrawn (``_build``)
        self._view: View | None = None
        self._line_style = None  # the pane's rich style, until its styles change
        self._timer = None
        self._last_build = 0.0
        self.builds = 0  # times the rows were rebuilt, for tests and benches
        self._follow = True
        self.set_title(f"{worker} · idle")

    # -- public -------------------------------------------------------------------

    def set_title(self, title: str) -> None:
        self.border_title = Content(title)

    @property
    def text(self) -> str:
        """Everything the pane says, one entry per line group (tests read it)."""
        return "\n".join(entry.plain for entry in self.entries)

    def rendered_text(self) -> str:
        """Every row the pane draws, at its width (tests read it)."""
        self._build()
        return "\n".join(strip.text.rstrip() for strip in self._rows)

    def rows_of(self, entry: Entry) -> range:
        """The rows ``entry`` is drawn on (0 is the pane's first row)."""
        self._build()
        index = self.entries.index(entry)
        end = self._starts[index + 1] if index + 1 < len(self._starts) else len(self._rows)
        return range(self._starts[index], end)

    @property
    def pending(self) -> bool:
        """A repaint is due (what the pane says changed since it was drawn)."""
        return self._stale

    def painted_text(self) -> str:
        """The rows as last drawn, without drawing (benches read it)."""
        return "\n".join(strip.text.rstrip() for strip in self._rows)

    @property
    def following(self) -> bool:
        """True while the pane follows its tail (or all of it is in view)."""
        return self._follow or self.max_scroll_y <= 0

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._follow = round(new) >= self.max_scroll_y

    def follow_tail(self) -> None:
        """Show the end and follow it again (a zoom opens at the tail)."""
        self._follow = True
        self._changed(now=True)
        self.call_after_refresh(lambda: self.set_scroll(None, self.max_scroll_y))

    def restyle(self) -> None:
        """The screen's folds or the theme changed: draw every entry again."""
        self._view = None
        self._cache, self._other_width = {}, (0, {})
        self._changed(now=True)

    async def write(self, frame_ops: Iterable[ops.PaneOp]) -> None:
        """Show one frame's ops (the model changes now, the paint follows)."""
        for op in frame_ops:
            self._apply(op)
        excess = len(self.entries) - self.max_entries
        if excess > 0:
            self._prune(excess)
        self._changed()

    # -- the model ---------------------------------------------------------------------

    def _apply(self, op: ops.PaneOp) -> None:
        match op:
            case ops.TextOp():
                block = self._blocks.get(op.block)
                if block is None:
                    block = self._blocks[op.block] = self._text_block(op.kind)
                    self.entries.append(block)
                block.append(op.text)
            case ops.ReleaseOp():
                block = self._blocks.get(op.block)
                if isinstance(block, StructuredBlock):
                    block.release()
            case ops.StepOp():
                self.entries.append(StepHeading(op))
            case ops.ToolOp():
                entry = self._tools[op.call_id] = ToolEntry(op)
                self.entries.append(entry)
            case ops.ToolDoneOp():
                tool = self._tools.pop(op.call_id, None)
                if tool is not None:
                    tool.finished(op)
            case ops.ReportOp():
                self._settle(op.block)
                self.entries.append(ReportCard(op))
            case ops.VerdictOp():
                self._settle(op.block)
                self.entries.append(VerdictCard(op))
            case ops.CheckOp():
                self.entries.append(CheckCard(op))
            case ops.NoticeOp():
                self.entries.append(Notice(op))

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

    def _prune(self, excess: int) -> None:
        gone, self.entries = self.entries[:excess], self.entries[excess:]
        gone_ids = {id(entry) for entry in gone}
        self._blocks = {n: b for n, b in self._blocks.items() if id(b) not in gone_ids}
        self._tools = {c: t for c, t in self._tools.items() if id(t) not in gone_ids}
        if not self.following and self._starts:
            # What the person is reading moves up by the rows removed above it.
            removed = self._starts[excess] if excess < len(self._starts) else len(self._rows)
            self.set_scroll(None, max(0, self.scroll_y - removed))
        for key in gone_ids:
            self._cache.pop(key, None)
            self._other_width[1].pop(key, None)

    # -- painting ------------------------------------------------------------------------

    def _changed(self, now: bool = False) -> None:
        self._stale = True
        if not self.is_attached or not self._shown():
            return  # drawn when it is shown (render_line finds it stale)
        if now:
            self._flush()
            return
        if self._timer is not None:
            return
        # Due (or nearly: the app's frames come 1/30 s apart, give or take)
        # is drawn now, in the frame that brought the text, so the four
        # panes of a frame are painted in one screen update instead of each
        # on a timer of its own, out of step.
        wait = self._last_build + 1 / FRAMES_PER_S - time.monotonic()
        if wait <= DUE_EARLY_S:
            self._flush()
        else:
            self._timer = self.set_timer(wait, self._flush, name="worker-pane")

    def _shown(self) -> bool:
        return self.display and self.screen.is_active and bool(self.region)

    def _flush(self) -> None:
        self._timer = None
        if not self._stale:
            return
        follow = self.following
        self._build()
        self._sync_size(follow)
        self.refresh()

    def _sync_size(self, follow: bool) -> None:
        size = Size(self._rows_width, len(self._rows))
        if self.virtual_size != size:
            # The grid sizes the pane, and its scrollbar is always there
            # (overflow-y: scroll): its content height only moves the
            # scrollbar. Setting ``virtual_size`` the ordinary way would lay
            # out the whole screen on every frame a pane grows.
            self.set_reactive(Widget.virtual_size, size)
            self._scroll_update(size)
            self.refresh()
        if follow and self.scroll_y != self.max_scroll_y:
            self.set_scroll(None, self.max_scroll_y)
            self.refresh()
        if self.show_vertical_scrollbar and self.vertical_scrollbar.position != self.scroll_y:
            self.vertical_scrollbar.position = self.scroll_y

    def _width(self) -> int:
        return max(1, self.scrollable_content_region.width)

    def _view_now(self) -> View:
        if self._view is None:
            get = self.get_visual_style
            styles = {name: get(f"worker-pane--{name}") for name in _STYLE_NAMES}
            screen = self.screen
            self._view = View(
                fold_thinking=screen.has_class("-fold-thinking"), open_tools=screen.has_class("-open-tools"),
                raw=screen.has_class("-raw"), styles=styles,
                markdown=BlockStyles(heading=styles["md-heading"], code=styles["md-code"], fence=styles["md-fence"],
                                     quote=styles["md-quote"], link=styles["md-link"]),
                to_strips=lambda lines, width: widget_strips(self, lines, width),
            )
        return self._view

    def _build(self, rows_wanted: int | None = None) -> None:
        """The pane's rows at its width. ``rows_wanted`` (a layout's frame,
        following the tail): entries may leave rows above that many from
        their end undrawn; the rest is drawn right after the frame."""
        width = self._width()
        if width == self._rows_width and not self._stale and (rows_wanted is not None or not self._incomplete):
            return
        self._last_build = time.monotonic()
        self._stale = False
        self.builds += 1
        if width != self._rows_width:
            before, cache = self._other_width
            self._other_width = (self._rows_width, self._cache)
            self._cache = cache if before == width else {}
        self._rows_width = width
        view = self._view_now()
        rows: list[Strip] = []
        starts: list[int] = []
        incomplete = False
        for number, entry in enumerate(self.entries):
            key = (entry.version, entry.flipped, entry.view_key(view), number == 0)
            cached = self._cache.get(id(entry))
            if cached is None or cached[0] != key:
                strips = entry.strips(width, view, number == 0, rows_wanted)
                # A partly drawn entry is asked again by the next whole build.
                cached = self._cache[id(entry)] = (None if entry.partial else key, strips)
                incomplete = incomplete or entry.partial
            starts.append(len(rows))
            rows.extend(cached[1])
        self._rows, self._starts = rows, starts
        if incomplete and not self._incomplete:
            self.call_after_refresh(self._complete)
        self._incomplete = incomplete

    def _complete(self) -> None:
        if self._incomplete:
            self._stale = True
            self._flush()

    def render_line(self, y: int) -> Strip:
        if self._stale or self._rows_width != self._width():
            follow = self.following
            self._build(self._rows_in_view() if follow else None)
            self.call_later(self._sync_size, follow)
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        row = scroll_y + y
        style = self._line_style
        if style is None:
            # Walking the ancestors for the background on every line was a
            # seventh of a full repaint (a key that changes the layout).
            style = self._line_style = self.rich_style
        if row >= len(self._rows):
            return Strip.blank(width, style)
        return self._rows[row].crop_extend(scroll_x, scroll_x + width, style).apply_offsets(scroll_x, row)

    # -- Textual ---------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._changed()

    def on_resize(self) -> None:
        follow = self._follow
        self._stale = True
        self._build(self._rows_in_view() if follow else None)
        self._sync_size(follow)

    def _rows_in_view(self) -> int:
        # Twice the height: the frame after a key may scroll a little.
        return 2 * max(1, self.size.height)

    def on_show(self) -> None:
        self._changed(now=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._line_style = None
        self._view = None
        self._cache, self._other_width = {}, (0, {})
        self._stale = True

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or not self._starts:
            return
        row = offset.y + self.scroll_y
        index = bisect.bisect_right(self._starts, row) - 1
        if 0 <= index < len(self.entries) and self.entries[index].flippable:
            self.entries[index].flip()
            self._changed(now=True)
