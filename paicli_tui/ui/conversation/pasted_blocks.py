"""Long pastes shown as one short token in the prompt (``[pasted 120
lines]``) and sent whole. Plain Python: the prompt editor keeps one of these.

A paste is "long" past ``MAX_LINES`` lines or ``MAX_CHARS`` characters:
below that it goes into the editor as it is. The token is plain text in the
editor, so it moves, copies and deletes like any word; when submitted, each
token still in the text is replaced by its paste, and a token the person
deleted takes its paste with it.
"""

from __future__ import annotations

MAX_LINES = 10
MAX_CHARS = 1000


def normalise(text: str) -> str:
    """Terminal pastes may end lines with CR or CRLF; the prompt uses LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def is_long(text: str) -> bool:
    return text.count("\n") + 1 > MAX_LINES or len(text) > MAX_CHARS


class PastedBlocks:
    def __init__(self) -> None:
        self._blocks: dict[str, str] = {}

    def __bool__(self) -> bool:
        return bool(self._blocks)

    def add(self, text: str) -> str:
        """Keep ``text``; returns the token that stands for it."""
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        label = f"pasted {lines} lines" if lines > 1 else f"pasted {len(text):,} characters"
        token = f"[{label}]"
        number = 1
        while token in self._blocks:
            number += 1
            token = f"[{label} #{number}]"
        self._blocks[token] = text
        return token

    def adopt(self, token: str, text: str) -> str:
        """Stand for ``text`` under ``token`` again (an input put back in the
        editor), or under a fresh token when ``token`` already stands for
        another paste; returns the token used."""
        if self._blocks.get(token, text) == text:
            self._blocks[token] = text
            return token
        return self.add(text)

    def expand(self, text: str) -> str:
        """``text`` with every token in it replaced by its paste."""
        for token, block in self._blocks.items():
            text = text.replace(token, block)
        return text

    def token_ending(self, before_cursor: str) -> str | None:
        """The token that ``before_cursor`` ends with, so Backspace can take
        it whole rather than leave a broken token behind."""
        return next((token for token in self._blocks if before_cursor.endswith(token)), None)

    def items(self) -> tuple[tuple[str, str], ...]:
        return tuple(self._blocks.items())

    def restore(self, items: tuple[tuple[str, str], ...]) -> None:
        """Stand for these pastes again (an input recalled from history)."""
        self._blocks = dict(items)

    def clear(self) -> None:
        self._blocks.clear()
