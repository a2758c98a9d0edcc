"""One worker's live output on the run screen (P-7.3, P-7.6).

A scroll view over wrapped lines, each line of one kind (reasoning, content,
tool call, verdict…) styled through the theme. Text arrives in per-frame
batches (``append``, one call per frame) and usually ends mid-line, so only
the last row of the open line is re-wrapped: greedy wrapping never moves an
earlier break when text is added at the end. The pane is bounded by
``max_lines`` and keeps its place when the person scrolled up.
"""

from __future__ import annotations

import re
from typing import Iterable

from rich.cells import cell_len, get_character_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

MAX_LINES = 2000
KINDS = (
    "content",
    "reasoning",
    "header",
    "tool",
    "result",
    "report",
    "review",
    "approved",
    "rejected",
    "retry",
    "warning",
    "error",
)
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]")


def clean(text: str) -> str:
    """Drop terminal escapes and control characters (tool output may carry
    them); tabs become spaces."""
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\t", "    "))


def row_length(text: str, width: int) -> int:
    """How many characters of ``text`` fill one row of ``width`` cells:
    break after the last space that fits, or hard-break a long word. A row
    keeps its trailing space so row lengths add up to the text's length."""
    if text.isascii():
        if len(text) <= width:
            return len(text)
        cut = text.rfind(" ", 0, width + 1)
        return cut + 1 if cut > 0 else width
    cells = 0
    last_space = -1
    for index, char in enumerate(text):
        size = get_character_cell_size(char)
        if cells + size > width:
            if char == " ":
                return index + 1
            return last_space + 1 if last_space > 0 else max(index, 1)
        cells += size
        if char == " ":
            last_space = index
    return len(text)


def wrap(text: str, width: int) -> list[str]:
    rows = []
    while True:
        length = row_length(text, width)
        if length >= len(text):
            rows.append(text)
            return rows
        rows.append(text[:length])
        text = text[length:]


class LineBuffer:
    """Logical lines of one kind each, and their rows wrapped to ``width``.
    The last line stays open until a newline arrives."""

    def __init__(self, max_lines: int = MAX_LINES, width: int = 40) -> None:
        self.max_lines = max_lines
        self.width = max(1, width)
        self.lines: list[list[str]] = []  # [kind, text]
        self.rows: list[tuple[str, str]] = []
        self._line_rows: list[int] = []
        self._open = False
        self._tail_start = 0  # offset in the open line where its last row starts
        #: Rows dropped from the top so far: ``pruned + index`` numbers a row
        #: for as long as it lives.
        self.pruned = 0

    def append(self, segments: Iterable[tuple[str, str]]) -> tuple[bool, int]:
        """Add (kind, text) pieces; returns (anything changed, rows pruned
        from the top)."""
        before = len(self.rows), self.rows[-1] if self.rows else None
        for kind, text in segments:
            kind = kind if kind in KINDS else "content"
            for index, part in enumerate(clean(text).split("\n")):
                if index:
                    self._end_line(kind)
                if part:
                    self._extend(kind, part)
        removed = self._prune()
        changed = removed > 0 or (len(self.rows), self.rows[-1] if self.rows else None) != before
        return changed, removed

    def rewrap(self, width: int) -> None:
        self.width = max(1, width)
        self.rows, self._line_rows = [], []
        for index, (kind, text) in enumerate(self.lines):
            rows = wrap(text, self.width)
            self.rows.extend((kind, row) for row in rows)
            self._line_rows.append(len(rows))
            if index == len(self.lines) - 1 and self._open:
                self._tail_start = len(text) - len(rows[-1])

    def _extend(self, kind: str, part: str) -> None:
        if not self._open or self.lines[-1][0] != kind:
            self.lines.append([kind, ""])
            self._line_rows.append(0)
            self._open, self._tail_start = True, 0
        line = self.lines[-1]
        line[1] += part
        if self._line_rows[-1]:
            self.rows.pop()
            self._line_rows[-1] -= 1
        rows = wrap(line[1][self._tail_start :], self.width)
        self._tail_start += sum(len(row) for row in rows[:-1])
        self.rows.extend((kind, row) for row in rows)
        self._line_rows[-1] += len(rows)

    def _end_line(self, kind: str) -> None:
        if self._open:
            self._open = False
            return
        self.lines.append([kind, ""])
        self._line_rows.append(1)
        self.rows.append((kind, ""))

    def _prune(self) -> int:
        excess = len(self.lines) - self.max_lines
        if excess <= 0:
            return 0
        rows = sum(self._line_rows[:excess])
        del self.lines[:excess]
        del self._line_rows[:excess]
        del self.rows[:rows]
        self.pruned += rows
        return rows


class WorkerPane(ScrollView, can_focus=True):
    ALLOW_MAXIMIZE = True
    COMPONENT_CLASSES = {f"worker-pane--{kind}" for kind in KINDS}
    DEFAULT_CSS = """
    WorkerPane {
        border: round $panel-lighten-2;
        border-title-color: $text;
        background: $surface;
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 1;
        &:focus { border: round $accent; }
        & > .worker-pane--content { color: $text; }
        & > .worker-pane--reasoning { color: $text-muted; text-style: italic; }
        & > .worker-pane--header { color: $primary; text-style: bold; }
        & > .worker-pane--tool { color: $accent; }
        & > .worker-pane--result { color: $text-muted; }
        & > .worker-pane--report { color: $secondary; }
        & > .worker-pane--review { color: $primary; }
        & > .worker-pane--approved { color: $success; }
        & > .worker-pane--rejected { color: $warning; }
        & > .worker-pane--retry { color: $warning; text-style: bold; }
        & > .worker-pane--warning { color: $warning; }
        & > .worker-pane--error { color: $error; }
    }
    """

    def __init__(self, worker: str, *, max_lines: int = MAX_LINES, id: str | None = None) -> None:
        super().__init__(id=id)
        self.worker = worker
        self.buffer = LineBuffer(max_lines)
        self._sized = False
        self._styles: dict[str, Style] = {}
        # Painted rows by row number, with the row they show: scrolling by a
        # few rows per frame then re-renders only the rows that are new.
        self._strips: dict[int, tuple[tuple[str, str], Strip]] = {}
        self.set_title(f"{worker} · idle")

    # -- public -------------------------------------------------------------------

    def set_title(self, title: str) -> None:
        self.border_title = Content(title)

    @property
    def lines(self) -> list[tuple[str, str]]:
        """Logical lines as (kind, text)."""
        return [(kind, text) for kind, text in self.buffer.lines]

    @property
    def rows(self) -> list[tuple[str, str]]:
        """Wrapped rows as (kind, text), as painted."""
        return self.buffer.rows

    @property
    def text(self) -> str:
        return "\n".join(text for _, text in self.buffer.lines)

    def append(self, segments: Iterable[tuple[str, str]]) -> None:
        """Add one frame's text: (kind, text) pieces, newlines end lines."""
        at_end = self._at_end()
        changed, removed = self.buffer.append(segments)
        if not changed:
            return
        self._set_virtual_height(len(self.buffer.rows))
        if at_end:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
        elif removed:
            # Keep what the person is reading where it is.
            self.scroll_to(y=max(0, self.scroll_y - removed), animate=False, immediate=True)
        self.refresh()

    def _at_end(self) -> bool:
        return self.scroll_y >= self.max_scroll_y

    def _set_virtual_height(self, rows: int) -> None:
        size = Size(self.buffer.width, rows)
        if size == self.virtual_size:
            return
        # Assigning virtual_size asks for a layout pass of the whole screen,
        # the main cost of a frame with four streaming panes. The vertical
        # scrollbar is always shown (overflow-y: scroll), so growing content
        # moves nothing: set the size quietly and update the scrollbar.
        self.set_reactive(ScrollView.virtual_size, size)
        bar = self.vertical_scrollbar
        bar.window_virtual_size = rows
        bar.window_size = self.scrollable_content_region.height
        bar.refresh()

    # -- Textual -------------------------------------------------------------------

    def on_resize(self) -> None:
        width = max(8, self.scrollable_content_region.width)
        if width != self.buffer.width or not self._sized:
            self._sized = True
            at_end = self._at_end()
            self.buffer.rewrap(width)
            self._strips.clear()
            self.virtual_size = Size(width, len(self.buffer.rows))
            if at_end:
                self.scroll_end(animate=False, immediate=True, x_axis=False)
            self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()

    def _style(self, kind: str) -> Style:
        # rich_style walks the DOM on every call: resolve styles once per
        # style change, not once per painted row.
        style = self._styles.get(kind)
        if style is None:
            base = self._styles.get("")
            if base is None:
                base = self._styles[""] = self.rich_style
            style = base if not kind else base + self.get_component_rich_style(f"worker-pane--{kind}")
            self._styles[kind] = style
        return style

    def render_line(self, y: int) -> Strip:
        width = self.buffer.width
        index = self.scroll_offset.y + y
        base = self._style("")
        rows = self.buffer.rows
        if index >= len(rows):
            return Strip.blank(width, base)
        entry = rows[index]
        number = self.buffer.pruned + index
        cached = self._strips.get(number)
        if cached is not None and cached[0] is entry:
            return cached[1]
        kind, row = entry
        strip = Strip([Segment(row, self._style(kind))], cell_len(row)).crop_extend(0, width, base)
        if len(self._strips) > 4 * max(self.size.height, 16):
            self._strips.clear()  # keep roughly what is on screen
        self._strips[number] = (entry, strip)
        return strip
