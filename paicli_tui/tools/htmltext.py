"""HTML → readable plain text with the standard library's parser: block
elements become line breaks, headings get '#', list items '- ', and script,
style and other invisible parts are dropped."""

from __future__ import annotations

import re
from html.parser import HTMLParser

_INVISIBLE = {"script", "style", "noscript", "template", "svg", "head", "iframe", "object"}
_BLOCKS = {"p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "br", "hr", "tr",
           "table", "ul", "ol", "dl", "dt", "dd", "pre", "blockquote", "form", "figure", "figcaption", "li",
           "h1", "h2", "h3", "h4", "h5", "h6", "title"}
_VOID = {"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source", "track", "wbr"}


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self._hidden_depth = 0
        self._in_title = False
        self._pre_depth = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in _INVISIBLE and tag not in _VOID:
            self._hidden_depth += 1
            return
        if tag == "title":
            self._in_title = True
        if tag == "pre":
            self._pre_depth += 1
        if tag in _BLOCKS:
            self.parts.append("\n")
        if len(tag) == 2 and tag[0] == "h" and tag[1].isdigit():
            self.parts.append("#" * int(tag[1]) + " ")
        elif tag == "li":
            self.parts.append("- ")
        elif tag in ("td", "th"):
            self.parts.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _INVISIBLE and tag not in _VOID:
            self._hidden_depth = max(0, self._hidden_depth - 1)
            return
        if tag == "title":
            self._in_title = False
        if tag == "pre":
            self._pre_depth = max(0, self._pre_depth - 1)
        if tag in _BLOCKS and tag not in ("li", "dt", "dd", "tr"):  # keep lists and rows tight
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
            return
        if self._hidden_depth:
            return
        self.parts.append(data if self._pre_depth else re.sub(r"\s+", " ", data))


def html_to_text(html: str) -> str:
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    # Collapsed whitespace leaves at most one leading space; more means <pre>.
    lines = [_unindent(line.rstrip()) for line in "".join(parser.parts).splitlines()]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    title = " ".join(parser.title.split())
    return f"# {title}\n\n{text}" if title and title not in text[:200] else text


def _unindent(line: str) -> str:
    return line[1:] if line.startswith(" ") and not line.startswith("  ") else line
