"""Markdown blocks to lines of styled text, for widgets that paint lines
(the Line API) instead of mounting a widget per block.

One top-level block (see markdown_doc.py) becomes a list of ``Content``
lines at a width: paragraphs and headings wrap, list items keep a hanging
indent, code keeps its lines (cropped, never wrapped), quotes get a bar,
tables line up their columns (cells wrap within them).
Spacing is explicit: one blank line after every block, before a heading
instead. Rendering a block costs a wrap of its text; code is highlighted
only once its fence is closed.
"""

from __future__ import annotations

from dataclasses import dataclass

from markdown_it.token import Token
from textual.content import Content, Span
from textual.highlight import highlight
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions
from textual.widget import Widget

from paicli_tui.ui.common.markdown_doc import Block


@dataclass(frozen=True)
class BlockStyles:
    heading: Style = Style(bold=True)
    code: Style = Style(italic=True)
    fence: Style = Style(dim=True)
    quote: Style = Style(italic=True)
    link: Style = Style(underline=True)


_INLINE_STYLES = {
    "strong_open": Style(bold=True), "em_open": Style(italic=True), "s_open": Style(strike=True),
}


def inline_content(token: Token, styles: BlockStyles) -> Content:
    """An ``inline`` token's children as one Content with spans."""
    parts: list[str] = []
    spans: list[Span] = []
    opened: list[tuple[int, Style]] = []
    position = 0
    for child in token.children or ():
        kind = child.type
        text = ""
        if kind in ("text", "html_inline"):
            text = child.content
        elif kind == "softbreak":
            text = " "
        elif kind == "hardbreak":
            text = "\n"
        elif kind == "code_inline":
            text = child.content
            spans.append(Span(position, position + len(text), styles.code))
        elif kind == "image":
            text = child.content or "image"
        elif kind.endswith("_open"):
            opened.append((position, styles.link if kind == "link_open" else _INLINE_STYLES.get(kind, Style())))
        elif kind.endswith("_close") and opened:
            start, style = opened.pop()
            spans.append(Span(start, position, style))
        parts.append(text)
        position += len(text)
    return Content("".join(parts), spans)


def _wrap(content: Content, width: int, first: str = "", rest: str = "") -> list[Content]:
    lines = content.wrap(max(1, width - len(first)))
    return [Content(first if n == 0 else rest) + line for n, line in enumerate(lines)]


def _list_lines(tokens: tuple[Token, ...], width: int, styles: BlockStyles) -> list[Content]:
    out: list[Content] = []
    numbers: list[int | None] = []  # per open list: the next number, or None for bullets
    marker = ""
    for token in tokens:
        kind = token.type
        if kind == "bullet_list_open":
            numbers.append(None)
        elif kind == "ordered_list_open":
            numbers.append(int(token.attrs.get("start", 1) or 1))
        elif kind in ("bullet_list_close", "ordered_list_close"):
            numbers.pop()
        elif kind == "list_item_open":
            number = numbers[-1] if numbers else None
            marker = "• " if number is None else f"{number}. "
            if number is not None:
                numbers[-1] = number + 1
        elif kind == "inline" and numbers:
            indent = "  " * (len(numbers) - 1)
            lead = indent + (marker or " " * 2)
            out.extend(_wrap(inline_content(token, styles), width, lead, " " * len(lead)))
            marker = ""  # a second paragraph of the item has no marker
        elif kind in ("fence", "code_block") and numbers:
            indent = "  " * len(numbers)
            out.extend(Content.styled(indent + line, styles.fence) for line in token.content.rstrip("\n").split("\n"))
    return out


def _fence_lines(token: Token, width: int, styles: BlockStyles, highlighted: bool) -> list[Content]:
    """A box of the fence's background, a line of padding above and below;
    the code coloured only when ``highlighted`` (a finished fence: it is
    coloured once, not on every frame while it streams)."""
    code = token.content.rstrip("\n")
    if highlighted:
        words = (token.info or "").split(maxsplit=1)
        language = words[0] if words else None  # a bare ``` fence names no language
        rows = highlight(code, language=language).split("\n")
    else:
        rows = [Content(row) for row in code.split("\n")]
    rows = [Content(""), *rows, Content("")]
    return [row.pad_right(max(0, width - row.cell_length)).stylize_before(styles.fence) for row in rows]


#: Between two table columns.
_COLUMN_GAP = " │ "
_NARROWEST_COLUMN = 3
_RULE = Style(dim=True)


def _table_cells(tokens: tuple[Token, ...], styles: BlockStyles) -> tuple[list[list[Content]], int]:
    """The table's rows of cells, and how many of them are header rows."""
    rows: list[list[Content]] = []
    row: list[Content] | None = None
    header = 0
    for token in tokens:
        if token.type == "tr_open":
            row = []
        elif token.type == "inline" and row is not None:
            row.append(inline_content(token, styles))
        elif token.type == "tr_close" and row is not None:
            rows.append(row)
            row = None
        elif token.type == "thead_close":
            header = len(rows)
    return rows, header


def _column_widths(rows: list[list[Content]], columns: int, room: int) -> list[int] | None:
    """Each column's width: as wide as its widest cell, the widest columns
    narrowed first until the table fits ``room``; None if it cannot."""
    widths = [max(1, max(row[c].cell_length for row in rows)) for c in range(columns)]
    if room < columns * _NARROWEST_COLUMN:
        return None
    while sum(widths) > room:
        widest = max(range(columns), key=widths.__getitem__)
        widths[widest] -= 1
    return widths


def _table_lines(tokens: tuple[Token, ...], width: int, styles: BlockStyles) -> list[Content]:
    """Columns aligned and separated by rules, cells wrapped within their
    column, the header bold and ruled off; [] when the table has no rows
    or the width cannot hold its columns (then it is shown as written)."""
    rows, header = _table_cells(tokens, styles)
    if not rows:
        return []
    columns = max(len(row) for row in rows)
    rows = [row + [Content("")] * (columns - len(row)) for row in rows]
    widths = _column_widths(rows, columns, width - len(_COLUMN_GAP) * (columns - 1))
    if widths is None:
        return []
    gap = Content.styled(_COLUMN_GAP, _RULE)
    lines: list[Content] = []
    for number, row in enumerate(rows):
        wrapped = [cell.wrap(widths[c]) for c, cell in enumerate(row)]
        for y in range(max(1, *(len(cell) for cell in wrapped))):
            parts = []
            for c, cell in enumerate(wrapped):
                piece = cell[y] if y < len(cell) else Content("")
                parts.append(piece.pad_right(widths[c] - piece.cell_length))
            line = gap.join(parts).rstrip()
            lines.append(line.stylize(styles.heading) if number < header else line)
        if number == header - 1:
            lines.append(Content.styled("─┼─".join("─" * w for w in widths), _RULE))
    return lines


def block_lines(block: Block, width: int, styles: BlockStyles, *, highlighted: bool = False) -> list[Content]:
    """``block`` at ``width`` cells with its spacing: a blank line after
    it, but a heading has its blank line above it."""
    tokens = block.tokens
    kind = block.kind
    if kind == "paragraph" or kind == "heading":
        inline = next((t for t in tokens if t.type == "inline"), None)
        if inline is None:
            lines = _wrap(Content(block.source.strip()), width)
        else:
            content = inline_content(inline, styles)
            lines = _wrap(content.stylize(styles.heading) if kind == "heading" else content, width)
    elif kind == "list":
        lines = _list_lines(tokens, width, styles)
    elif kind == "fence":
        lines = _fence_lines(tokens[0], width, styles, highlighted)
    elif kind == "quote":
        lines = []
        for token in tokens:
            if token.type == "inline":
                lines.extend(_wrap(inline_content(token, styles).stylize(styles.quote), width, "▌ ", "▌ "))
    elif kind == "hr":
        lines = [Content.styled("─" * max(1, width), styles.fence)]
    else:  # a table; as written when the width cannot hold its columns
        lines = _table_lines(tokens, width, styles) or [Content(line) for line in block.source.rstrip("\n").split("\n")]
    if kind == "heading":
        return [Content(""), *lines]
    return [*lines, Content("")]


def widget_strips(widget: Widget, lines: list[Content], width: int) -> list[Strip]:
    """``lines`` as strips on ``widget``'s own style."""
    options = RenderOptions(widget._get_style, widget.styles, None, None)
    base = widget.visual_style
    return [strip for line in lines for strip in line.render_strips(width, 1, base, options)]


class DrawnBlocks:
    """Each finished block's strips at a width (None: not drawn yet). Two
    widths are kept, so a layout that flips between two (the run screen's
    tree shown, hidden) draws nothing again."""

    def __init__(self) -> None:
        self._by_width: dict[int, list[list[Strip] | None]] = {}

    def at(self, width: int, blocks: int) -> tuple[list[list[Strip] | None], list[list[Strip] | None] | None]:
        """The list for ``width``, one slot per block, and the other width's."""
        drawn = self._by_width.pop(width, [])
        drawn.extend([None] * (blocks - len(drawn)))
        other = list(self._by_width.items())[-1:]
        self._by_width = {**dict(other), width: drawn}
        return drawn, (other[0][1] if other else None)
