"""Markdown painted as lines: one widget for an answer, however long.

Textual's ``Markdown`` mounts a widget per block and per list item; a
6,000-character answer in the transcript was some 600 widgets, and every
layout of the transcript walked them all (0.2–0.3 s each once a long answer
had landed, so keys stalled after a run). Here the text is a
``MarkdownDoc``: finished blocks are drawn once per width (two widths
kept), the open one again as text arrives, and the widget's height is its
number of rows.
"""

from __future__ import annotations

from rich.style import Style
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from paicli_tui.ui.common.markdown_doc import MarkdownDoc
from paicli_tui.ui.common.markdown_strips import BlockStyles, DrawnBlocks, block_lines, widget_strips

_PARTS = ("heading", "code", "fence", "quote", "link")


class MarkdownText(Widget):
    """Markdown that grows by ``write`` and is closed by ``finish``."""

    COMPONENT_CLASSES = {f"markdown-text--{part}" for part in _PARTS}
    DEFAULT_CSS = """
    MarkdownText { height: auto; }
    MarkdownText > .markdown-text--heading { color: $primary; text-style: bold; }
    MarkdownText:dark > .markdown-text--code { color: $text-warning 95%; background: $warning 10%; }
    MarkdownText:light > .markdown-text--code { color: $text-error 95%; background: $error 5%; }
    MarkdownText:dark > .markdown-text--fence { background: black 10%; }
    MarkdownText:light > .markdown-text--fence { background: white 30%; }
    MarkdownText > .markdown-text--quote { color: $text-muted; text-style: italic; }
    MarkdownText > .markdown-text--link { color: $text-primary; text-style: underline; }
    """

    def __init__(self, source: str = "", *, classes: str = "") -> None:
        super().__init__(classes=classes)
        self.doc = MarkdownDoc()
        self.finished = False
        self._drawn = DrawnBlocks()
        self._rows: list[Strip] = []
        self._rows_key: tuple[int, int] | None = None
        self._styles: BlockStyles | None = None
        self._line_style: Style | None = None
        if source:
            self.doc.append(source)

    @property
    def source(self) -> str:
        return self.doc.text

    def write(self, text: str) -> None:
        if self.finished or not text:
            return
        self.doc.append(text)
        self.refresh(layout=True)

    async def finish(self) -> None:
        if not self.finished:
            self.finished = True
            self.doc.close()
            self.refresh(layout=True)

    # -- drawing -------------------------------------------------------------------------

    def rows(self, width: int) -> list[Strip]:
        width = max(1, width)
        key = (width, self.doc.version)
        if key == self._rows_key:
            return self._rows
        styles = self._block_styles()
        open_blocks = self.doc.split()
        drawn, _ = self._drawn.at(width, len(self.doc.finished))
        rows: list[Strip] = []
        for index, block in enumerate(self.doc.finished):
            if drawn[index] is None:
                drawn[index] = widget_strips(self, block_lines(block, width, styles, highlighted=True), width)
            rows.extend(drawn[index])
        for block in open_blocks:
            rows.extend(widget_strips(self, block_lines(block, width, styles), width))
        last = (open_blocks or self.doc.finished or [None])[-1]
        if rows and last is not None and last.kind != "heading":
            rows.pop()  # the blank line after the last block: the entry's own margin spaces it
        self._rows, self._rows_key = rows, key
        return rows

    def _block_styles(self) -> BlockStyles:
        if self._styles is None:
            get = self.get_visual_style
            self._styles = BlockStyles(**{part: get(f"markdown-text--{part}") for part in _PARTS})
        return self._styles

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles, self._line_style, self._drawn, self._rows_key = None, None, DrawnBlocks(), None

    # -- Textual ---------------------------------------------------------------------------

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.rows(width))

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        rows = self.rows(width)
        style = self._line_style
        if style is None:  # the ancestors' walk for it, on every line, was a tenth of a paint
            style = self._line_style = self.rich_style
        if y >= len(rows):
            return Strip.blank(width, style)
        strip = rows[y].crop_extend(0, width, style)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(y)) is not None:
            start, end = span
            end = width if end == -1 else end
            chosen = self.selection_style
            strip = Strip.join([strip.crop(0, start), strip.crop(start, end).apply_style(chosen), strip.crop(end, width)])
        return strip.apply_offsets(0, y)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        text = "\n".join(strip.text.rstrip() for strip in self.rows(self.content_size.width or 80))
        return selection.extract(text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()
