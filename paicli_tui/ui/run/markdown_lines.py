"""Streamed Markdown as one widget that paints lines (the Line API).

Finished blocks (markdown_doc.py) are turned into strips once per width and
kept; only the open tail is rendered again, and at most ``REFRESH_HZ`` times
a second however fast text arrives: ``append`` is a string append, so the
frame that brings text never waits on rendering, and keys are handled
between frames. A widget that is not shown (its pane hidden, zoomed out,
behind another screen) is never asked for its lines, so it renders nothing
until it is shown again.
"""

from __future__ import annotations

import time

from textual.geometry import Size
from textual.strip import Strip
from textual.visual import RenderOptions
from textual.widget import Widget

from paicli_tui.ui.run.markdown_doc import Block, MarkdownDoc
from paicli_tui.ui.run.markdown_strips import BlockStyles, block_lines

#: Most re-renders of the open block per second.
REFRESH_HZ = 12


class MarkdownLines(Widget):
    DEFAULT_CSS = """
    MarkdownLines { height: auto; }
    MarkdownLines > .markdown-lines--heading { color: $primary; text-style: underline; }
    MarkdownLines > .markdown-lines--code { color: $text-accent; background: $boost; }
    MarkdownLines > .markdown-lines--fence { color: $text-muted; background: $boost; }
    MarkdownLines > .markdown-lines--quote { color: $text-muted; text-style: italic; }
    MarkdownLines > .markdown-lines--link { color: $text-primary; text-style: underline; }
    """
    COMPONENT_CLASSES = {
        "markdown-lines--heading", "markdown-lines--code", "markdown-lines--fence",
        "markdown-lines--quote", "markdown-lines--link",
    }

    def __init__(self, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.doc = MarkdownDoc()
        self.renders = 0  # open-tail renders, for tests and benches
        self._styles: BlockStyles | None = None
        self._width = 0
        self._finished: list[Strip] = []  # every finished block's strips, in order
        self._finished_blocks = 0
        self._open: list[Strip] = []
        self._seen_version = -1
        self._rows: list[Strip] = []
        self._timer = None
        self._last_refresh = 0.0

    # -- public -----------------------------------------------------------------

    def append(self, text: str) -> None:
        """Add streamed text; it is painted within 1 / REFRESH_HZ seconds."""
        if not text:
            return
        self.doc.append(text)
        if self._timer is None and self.is_attached:
            delay = max(0.001, self._last_refresh + 1 / REFRESH_HZ - time.monotonic())
            self._timer = self.set_timer(delay, self._refresh_now, name="markdown-lines")

    @property
    def text(self) -> str:
        return self.doc.text

    def rendered_text(self) -> str:
        """What the lines say (tests read it)."""
        return "\n".join(strip.text for strip in self._lines(self._width or self.size.width))

    # -- Textual ----------------------------------------------------------------------

    def on_mount(self) -> None:
        if self.doc.text:
            self._refresh_now()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None
        self._width = 0  # theme or class change: render again

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        lines = self._lines(width)
        if y >= len(lines):
            return Strip.blank(width, self.rich_style)
        return lines[y].crop_extend(0, width, self.rich_style).apply_offsets(0, y)

    # -- inside -------------------------------------------------------------------------

    def _refresh_now(self) -> None:
        self._timer = None
        self._last_refresh = time.monotonic()
        self.refresh(layout=True)

    def _block_styles(self) -> BlockStyles:
        if self._styles is None:
            get = self.get_visual_style
            self._styles = BlockStyles(
                heading=get("markdown-lines--heading"), code=get("markdown-lines--code"),
                fence=get("markdown-lines--fence"), quote=get("markdown-lines--quote"),
                link=get("markdown-lines--link"),
            )
        return self._styles

    def _strips(self, block: Block, width: int, finished: bool) -> list[Strip]:
        # render_strips resolves theme variables ($text-accent…) in
        # highlighted code and records offsets, so text can be selected.
        base = self.visual_style
        options = RenderOptions(self._get_style, self.styles, None, None)
        lines = block_lines(block, width, self._block_styles(), highlighted=finished)
        return [strip for line in lines for strip in line.render_strips(width, 1, base, options)]

    def _lines(self, width: int) -> list[Strip]:
        if width <= 0:
            return []
        if width != self._width:
            self._width, self._finished, self._finished_blocks, self._seen_version = width, [], 0, -1
        if self.doc.version == self._seen_version:
            return self._rows
        self._seen_version = self.doc.version
        open_blocks = self.doc.split()
        for block in self.doc.finished[self._finished_blocks:]:
            self._finished.extend(self._strips(block, width, True))
        self._finished_blocks = len(self.doc.finished)
        self._open = [strip for block in open_blocks for strip in self._strips(block, width, False)]
        self.renders += 1
        self._rows = self._finished + self._open
        return self._rows
