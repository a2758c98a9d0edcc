"""Where a growing text may be cut into a new widget, and what a pane may
show of raw text (no Textual).

Textual's ``Markdown.append`` re-reads the document's last block on every
call, and a ``Static`` re-wraps all of its text on every update: a long
streamed answer would cost more each frame. A stream is therefore kept as a
run of chunks, and a new chunk starts at a paragraph break (a blank line
outside a code fence) once the current chunk passed ``soft`` characters, or
at any line end outside a fence past ``hard`` — so a frame's work is bounded
by the size of one chunk, whatever the answer's length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SOFT_CHARS = 1100
HARD_CHARS = 1500
_FENCES = ("```", "~~~")
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]")


_LEAD = re.compile(r"^(?:[-*+]|\d+[.)]|#+|>)\s+|^_\((.*)\)_$")
_CODE = re.compile(r"`([^`]+)`")
_STRONG = re.compile(r"\*\*(\S(?:.*?\S)?)\*\*")


def plain_line(line: str) -> str:
    """One line without its Markdown marks, for a one-line preview (the
    pane and the details show it rendered): ``**/*.py`` in code stays whole."""
    line = _LEAD.sub(lambda m: m.group(1) or "", line.strip())
    codes: list[str] = []

    def keep(match: re.Match) -> str:
        codes.append(match.group(1))
        return f"\x00{len(codes) - 1}\x00"

    line = _STRONG.sub(r"\1", _CODE.sub(keep, line))
    return re.sub("\x00(\\d+)\x00", lambda m: codes[int(m.group(1))], line).strip()


def clean(text: str) -> str:
    """Drop terminal escapes and control characters (tool output may carry
    them); tabs become spaces."""
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\t", "    "))


@dataclass
class Chunker:
    markdown: bool = True
    soft: int = SOFT_CHARS
    hard: int = HARD_CHARS
    size: int = 0  # characters in the current chunk
    in_fence: bool = False
    partial: str = ""  # the current chunk's unfinished last line
    fresh: bool = False  # the last text ended with a cut: the next one opens a chunk
    #: For each piece after the first of the last ``split``: was it cut inside
    #: a paragraph (a line end, past ``hard``) rather than at a blank line?
    mid_paragraph: list[bool] = field(default_factory=list)
    _fresh_mid: bool = False

    def split(self, text: str) -> list[str]:
        """``text`` as pieces: the first continues the current chunk (it may
        be empty), each further one starts a new chunk."""
        pieces: list[str] = [""] if self.fresh and text else []
        self.mid_paragraph = [self._fresh_mid] if pieces else []
        self.fresh = False
        start = offset = 0
        for piece in text.splitlines(keepends=True):
            offset += len(piece)
            self.size += len(piece)
            if not piece.endswith(("\n", "\r")):
                self.partial += piece
                continue
            line, self.partial = self.partial + piece, ""
            if self.markdown and line.lstrip().startswith(_FENCES):
                self.in_fence = not self.in_fence
            if self.in_fence:
                continue
            blank = not line.strip()
            if (self.size > self.soft and blank) or self.size > self.hard:
                pieces.append(text[start:offset])
                start, self.size = offset, 0
                self.mid_paragraph.append(not blank)
        if start < len(text) or not pieces:
            pieces.append(text[start:])
        else:
            self.fresh, self._fresh_mid = True, self.mid_paragraph.pop()
        del self.mid_paragraph[len(pieces) - 1 :]
        return pieces
