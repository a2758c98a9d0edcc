"""Level-2 Markdown sections of a prompt file, found outside code fences.

The assembler moves and removes whole sections (``## Tools``,
``## Output Format`` …); a section runs from its heading to the next ``#`` or
``##`` heading, so ``###`` subsections travel with it.
"""

from __future__ import annotations

from dataclasses import dataclass

_FENCES = ("```", "~~~")


@dataclass(frozen=True)
class Chunk:
    #: The ``##`` heading's title, or None for text before the first heading
    #: (or under a ``#`` heading).
    title: str | None
    text: str


def split_sections(text: str) -> list[Chunk]:
    chunks: list[Chunk] = []
    title: str | None = None
    lines: list[str] = []
    in_fence = False
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith(_FENCES):
            in_fence = not in_fence
        elif not in_fence and _is_top_heading(line):
            if lines:
                chunks.append(Chunk(title, "".join(lines)))
            title = line[3:].strip() if line.startswith("## ") else None
            lines = []
        lines.append(line)
    if lines:
        chunks.append(Chunk(title, "".join(lines)))
    return chunks


def _is_top_heading(line: str) -> bool:
    return line.startswith("# ") or line.startswith("## ") or line.rstrip("\n") in ("#", "##")


def _same(a: str | None, b: str) -> bool:
    return a is not None and a.casefold() == b.casefold()


def take_section(text: str, title: str) -> tuple[str | None, str]:
    """(the first ``## title`` section or None, ``text`` without it)."""
    chunks = split_sections(text)
    for i, chunk in enumerate(chunks):
        if _same(chunk.title, title):
            rest = chunks[:i] + chunks[i + 1 :]
            return chunk.text, "".join(c.text for c in rest)
    return None, text


def replace_sections(text: str, titles: tuple[str, ...], replacement: str = "") -> str:
    """Drop every section named in ``titles``; ``replacement`` goes where the
    first one was (or at the end when none was there)."""
    out: list[str] = []
    placed = not replacement
    for chunk in split_sections(text):
        if any(_same(chunk.title, t) for t in titles):
            if not placed:
                out.append(_as_block(replacement))
                placed = True
            continue
        out.append(chunk.text)
    if not placed:
        out.append(_as_block(replacement))
    return "".join(_as_block(part) for part in out if part.strip())


def _as_block(text: str) -> str:
    """``text`` ending in exactly one blank line, so sections stay separated."""
    return text.rstrip() + "\n\n"
