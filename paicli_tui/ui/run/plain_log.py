"""Plain text that grows cheaply: the part of a burst a pane cannot show.

Textual wraps a ``Static`` or a Markdown block in Python on every change,
about 3 µs a character here, and Markdown parses it too: a frame that brings
tens of kilobytes to one pane (a very fast model, an instant replay) would
stall the screen. ``PlainLog`` wraps incrementally instead (greedy wrapping
never moves an earlier break when text is added at the end, so only the last
row of the open line is re-wrapped) and paints only the rows on screen. A
pane puts there the text that scrolled out of view the moment it arrived,
and renders it as Markdown later, while idle (``AnswerBlock``).
"""

from __future__ import annotations

from rich.cells import cell_len, get_character_cell_size
from rich.segment import Segment
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget


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


class WrappedText:
    """Lines and their rows wrapped to ``width``; the last line stays open
    until a newline arrives."""

    def __init__(self, width: int = 40) -> None:
        self.width = max(1, width)
        self.lines: list[str] = []
        self.rows: list[str] = []
        self._open = False
        self._open_rows = 0  # rows of the open line
        self._tail_start = 0  # offset in the open line where its last row starts

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + ("" if self._open or not self.lines else "\n")

    def append(self, text: str) -> None:
        for index, part in enumerate(text.split("\n")):
            if index:
                self._end_line()
            if part:
                self._extend(part)

    def rewrap(self, width: int) -> None:
        self.width = max(1, width)
        self.rows = []
        for index, line in enumerate(self.lines):
            rows = wrap(line, self.width)
            self.rows.extend(rows)
            if index == len(self.lines) - 1 and self._open:
                self._open_rows, self._tail_start = len(rows), len(line) - len(rows[-1])

    def _extend(self, part: str) -> None:
        if not self._open:
            self.lines.append("")
            self._open, self._open_rows, self._tail_start = True, 0, 0
        self.lines[-1] += part
        if self._open_rows:
            self.rows.pop()
            self._open_rows -= 1
        rows = wrap(self.lines[-1][self._tail_start :], self.width)
        self._tail_start += sum(len(row) for row in rows[:-1])
        self.rows.extend(rows)
        self._open_rows += len(rows)

    def _end_line(self) -> None:
        if self._open:
            self._open = False
            return
        self.lines.append("")
        self.rows.append("")


class PlainLog(Widget):
    DEFAULT_CSS = "PlainLog { height: auto; }"

    def __init__(self, text: str = "", *, classes: str = "") -> None:
        super().__init__(classes=classes)
        self.buffer = WrappedText()
        self.buffer.append(text)

    @property
    def text(self) -> str:
        return self.buffer.text

    def append(self, text: str) -> None:
        self.buffer.append(text)
        self.refresh(layout=True)

    def replace(self, text: str) -> None:
        width = self.buffer.width
        self.buffer = WrappedText(width)
        self.buffer.append(text)
        self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width and width != self.buffer.width:
            self.buffer.rewrap(width)
        return len(self.buffer.rows)

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        style = self.rich_style
        rows = self.buffer.rows
        if y >= len(rows):
            return Strip.blank(width, style)
        row = rows[y]
        return Strip([Segment(row, style)], cell_len(row)).crop_extend(0, width, style)
