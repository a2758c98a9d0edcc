"""Streamed Markdown split into finished top-level blocks and the open tail.

A block is finished once another top-level block starts after it: nothing
that arrives later can change it (the rule Textual's ``Markdown.append``
uses too). Finished blocks are rendered once and kept; only the open tail is
rendered again as text arrives. Splitting is done when asked (at render
time, a few times a second), not on every fragment, so appending costs one
string concatenation. No Textual here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

#: Kinds of top-level blocks, named from markdown-it's opening tokens.
_KINDS = {
    "paragraph_open": "paragraph", "heading_open": "heading", "bullet_list_open": "list",
    "ordered_list_open": "list", "fence": "fence", "code_block": "fence", "blockquote_open": "quote",
    "table_open": "table", "hr": "hr", "html_block": "paragraph",
}


#: An open tail longer than this (one endless paragraph, a list that never
#: ends) is cut at a line or word break, keeping about ``OPEN_KEEP``
#: characters open: the part before is finished as it stands, so no render
#: parses more than this however long the block grows.
OPEN_LIMIT = 3000
OPEN_KEEP = 1000


@lru_cache(maxsize=1)
def shared_parser() -> MarkdownIt:
    """One parser for every block: building one compiles its rules, and a
    parse keeps no state."""
    return MarkdownIt("gfm-like")


@dataclass(frozen=True)
class Block:
    kind: str
    source: str
    tokens: tuple[Token, ...]


def parse_blocks(source: str) -> list[Block]:
    """The top-level blocks of ``source``, each with its own source lines
    and tokens."""
    tokens = shared_parser().parse(source)
    lines = source.splitlines(keepends=True)
    blocks: list[Block] = []
    start = 0
    while start < len(tokens):
        token = tokens[start]
        end = start
        if token.nesting == 1:  # find the matching close at the same level
            depth = 0
            for end in range(start, len(tokens)):
                depth += tokens[end].nesting
                if depth == 0:
                    break
        first, last = token.map or (0, 0)
        blocks.append(Block(_KINDS.get(token.type, "paragraph"), "".join(lines[first:last]), tuple(tokens[start:end + 1])))
        start = end + 1
    return blocks


class MarkdownDoc:
    """The source of one streamed answer: ``finished`` blocks, then ``open``."""

    def __init__(self) -> None:
        self.finished: list[Block] = []
        self.open = ""
        self.text = ""
        self.version = 0  # grows with every append
        self._unsplit = False

    def append(self, text: str) -> None:
        self.version += 1
        self.text += text
        self.open += text
        if "\n" in text:
            self._unsplit = True

    def split(self) -> list[Block]:
        """Move the blocks the open tail has finished to ``finished``;
        returns the open tail's blocks (at most one, or several only while
        a fence or list still runs), for rendering."""
        if len(self.open) > OPEN_LIMIT and not self.open.lstrip().startswith(("```", "~~~")):
            self._cut_long_tail()
        blocks = parse_blocks(self.open)
        if self._unsplit and len(blocks) > 1:
            self._unsplit = False
            done, blocks = blocks[:-1], blocks[-1:]
            self.finished.extend(done)
            lines = self.open.splitlines(keepends=True)
            last = blocks[0].tokens[0].map or (0, 0)
            self.open = "".join(lines[last[0]:])
            blocks = parse_blocks(self.open)
        return blocks

    def close(self) -> None:
        """The text is complete: every block is finished."""
        self.split()
        self.finished.extend(parse_blocks(self.open))
        self.open = ""
        self.version += 1

    def _cut_long_tail(self) -> None:
        end = len(self.open) - OPEN_KEEP
        cut = self.open.rfind("\n", 0, end)
        if cut <= 0:
            cut = self.open.rfind(" ", 0, end)
        if cut <= 0:
            return
        self.finished.extend(parse_blocks(self.open[: cut + 1]))
        self.open = self.open[cut + 1 :]
