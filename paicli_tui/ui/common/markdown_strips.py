"""Markdown blocks to lines of styled text, for widgets that paint lines
(the Line API) instead of mounting a widget per block.

One top-level block (see markdown_doc.py) becomes a list of ``Content``
lines at a width: paragraphs and headings wrap, list items keep a hanging
indent, code keeps its lines (cropped, never wrapped), quotes get a bar.
Spacing is explicit: one blank line after every block, before a heading
instead. Rendering a block costs a wrap of its text; code is highlighted
only once its fence is closed.
"""

from __future__ import annotations

from dataclasses import dataclass

from markdown_it.token import Token
from textual.content import Content, Span
from textual.highlight import highlight
from textual.style import Style

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
    else:  # a table: its source lines, as written
        lines = [Content(line) for line in block.source.rstrip("\n").split("\n")]
    if kind == "heading":
        return [Content(""), *lines]
    return [*lines, Content("")]
