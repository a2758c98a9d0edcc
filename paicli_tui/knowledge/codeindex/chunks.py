"""Splitting a file into the pieces search returns.

Code is cut along its definitions: a function or a small class is one
chunk; a big class gives a chunk for its head and one per method; the code
between definitions (imports, module statements) is a chunk of its own; and
anything longer than ``MAX_LINES`` is cut into windows with the same symbol.
Markdown is cut at its headings; other text into windows."""

from __future__ import annotations

import re
from dataclasses import dataclass

from paicli_tui.knowledge.codeindex.parse import Definition
from paicli_tui.knowledge.memory.text_query import identifier_terms

#: A definition up to this many lines stays one chunk.
MAX_LINES = 120
#: Longer ranges are cut into windows of this many lines.
WINDOW_LINES = 60
#: Characters kept per chunk (a minified line must not become a huge row).
MAX_CHUNK_CHARS = 16_000
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


@dataclass(frozen=True)
class Chunk:
    start_line: int
    end_line: int
    symbol: str
    kind: str
    body: str

    @property
    def terms(self) -> str:
        return identifier_terms(f"{self.symbol} {self.body}")


def chunk_code(lines: list[str], definitions: list[Definition]) -> list[Chunk]:
    chunks: list[Chunk] = []
    cursor = 1
    top = [d for d in definitions if d.depth == 0]
    for definition in top:
        if definition.start_line < cursor:  # overlapping (a parse error): already covered
            continue
        _emit(chunks, lines, cursor, definition.start_line - 1, "", "module")
        members = [d for d in definitions if d.depth == 1 and definition.start_line <= d.start_line <= definition.end_line]
        size = definition.end_line - definition.start_line + 1
        if size <= MAX_LINES or not members:
            _emit(chunks, lines, definition.start_line, definition.end_line, definition.qualified, definition.kind)
        else:
            _split_container(chunks, lines, definition, members)
        cursor = definition.end_line + 1
    _emit(chunks, lines, cursor, len(lines), "", "module")
    return chunks


def _split_container(chunks: list[Chunk], lines: list[str], container: Definition, members: list[Definition]) -> None:
    _emit(chunks, lines, container.start_line, members[0].start_line - 1, container.qualified, container.kind)
    cursor = members[0].start_line
    for member in members:
        if member.start_line < cursor:
            continue
        # Comments and attributes between two methods go with the next one.
        _emit(chunks, lines, cursor, member.end_line, member.qualified, member.kind)
        cursor = member.end_line + 1
    _emit(chunks, lines, cursor, container.end_line, container.qualified, container.kind)


def chunk_markdown(lines: list[str]) -> list[Chunk]:
    chunks: list[Chunk] = []
    start, title = 1, ""
    for number, line in enumerate(lines, start=1):
        match = _HEADING.match(line)
        if match and number > start:
            _emit(chunks, lines, start, number - 1, title, "section")
            start = number
        if match:
            title = match.group(2)
    _emit(chunks, lines, start, len(lines), title, "section")
    return chunks


def chunk_text(lines: list[str]) -> list[Chunk]:
    chunks: list[Chunk] = []
    _emit(chunks, lines, 1, len(lines), "", "text", window_always=True)
    return chunks


def _emit(chunks: list[Chunk], lines: list[str], start: int, end: int, symbol: str, kind: str,
          *, window_always: bool = False) -> None:
    """Add lines ``start..end`` (1-based, inclusive) as one chunk or as
    windows; blank ranges add nothing."""
    end = min(end, len(lines))
    while start <= end and not lines[start - 1].strip():
        start += 1
    while end >= start and not lines[end - 1].strip():
        end -= 1
    if start > end:
        return
    if end - start + 1 <= MAX_LINES and not (window_always and end - start + 1 > WINDOW_LINES):
        chunks.append(Chunk(start, end, symbol, kind, _body(lines, start, end)))
        return
    for first in range(start, end + 1, WINDOW_LINES):
        last = min(first + WINDOW_LINES - 1, end)
        if any(line.strip() for line in lines[first - 1:last]):
            chunks.append(Chunk(first, last, symbol, kind, _body(lines, first, last)))


def _body(lines: list[str], start: int, end: int) -> str:
    text = "\n".join(lines[start - 1:end])
    return text if len(text) <= MAX_CHUNK_CHARS else text[:MAX_CHUNK_CHARS]
