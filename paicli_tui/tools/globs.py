"""Workspace-relative globs ('*' and '?' within one directory, '**' across
directories), matched in time linear in the path so that no pattern a
model writes can stall a search."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from paicli_tui.tools.base import ToolError


def glob_start(root: Path, pattern: str) -> Path | None:
    """The directory a glob cannot match outside of (its leading literal
    components), so a walk can start there; None when it does not exist.
    A directory reached through a symlink is not walked into: the plain
    walk from the root would not have listed it either."""
    parts = pattern.split("/")[:-1]
    literal: list[str] = []
    for part in parts:
        if any(char in part for char in "*?[") or part in ("", "."):
            break
        literal.append(part)
    start = root.joinpath(*literal)
    if not literal:
        return root
    if not start.is_dir() or Path(os.path.realpath(start)) != start:
        return None
    return start


MAX_GLOB_CHARS = 1000


class GlobMatcher:
    """A glob over '/'-separated relative paths, matched in time linear in
    the path: a lazily built DFA over sets of pattern positions. (The regex
    a glob translates to backtracks: '*a*a*a…b' against a long name of a's
    takes Python ``re`` minutes.)"""

    def __init__(self, pattern: str) -> None:
        self._tokens = _glob_tokens(pattern)
        width = len(self._tokens)
        self._skippable = sum(1 << i for i, (kind, _) in enumerate(self._tokens) if kind in ("*", "**", "**/"))
        self._accept = 1 << width
        self._start = self._closure(1)
        self._masks: dict[str, tuple[int, int]] = {}
        self._next: dict[tuple[int, str], int] = {}

    def fullmatch(self, path: str) -> bool:
        state = self._start
        table = self._next
        for char in path:
            following = table.get((state, char))
            if following is None:
                following = self._step(state, char)
                if len(table) > 50_000:  # bounded memory for adversarial patterns
                    table.clear()
                table[(state, char)] = following
            state = following
            if not state:
                return False
        return bool(state & self._accept)

    def _step(self, state: int, char: str) -> int:
        masks = self._masks.get(char)
        if masks is None:
            masks = self._masks[char] = self._char_masks(char)
        advance, stay = masks
        return self._closure(((state & advance) << 1) | (state & stay))

    def _char_masks(self, char: str) -> tuple[int, int]:
        """Positions that consume ``char`` and move on, and positions that
        consume it and stay (the loops of '*', '**' and '**/')."""
        advance = stay = 0
        for i, (kind, arg) in enumerate(self._tokens):
            bit = 1 << i
            if kind == "*":
                stay |= bit if char != "/" else 0
            elif kind == "**":
                stay |= bit
            elif kind == "**/":
                stay |= bit
                advance |= bit if char == "/" else 0
            elif kind == "?":
                advance |= bit if char != "/" else 0
            elif kind == "[]":
                negate, members = arg
                if char != "/" and (_in_class(char, members) != negate):
                    advance |= bit
            elif char == arg:
                advance |= bit
        return advance, stay

    def _closure(self, state: int) -> int:
        while True:
            grown = state | ((state & self._skippable) << 1)
            if grown == state:
                return state
            state = grown


def _glob_tokens(pattern: str) -> list[tuple[str, Any]]:
    if len(pattern) > MAX_GLOB_CHARS:
        raise ToolError(f"glob is {len(pattern)} characters long; at most {MAX_GLOB_CHARS}")
    tokens: list[tuple[str, Any]] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            tokens.append(("**/", None))
            i += 3
        elif pattern.startswith("**", i):
            tokens.append(("**", None))
            i += 2
        elif char in "*?":
            tokens.append((char, None))
            i += 1
        elif char == "[" and "]" in pattern[i + 2:]:
            end = pattern.index("]", i + 2)  # a ']' right after '[' is a member
            body = pattern[i + 1:end]
            negate = body[:1] in ("!", "^")
            tokens.append(("[]", (negate, body[1:] if negate else body)))
            i = end + 1
        else:
            tokens.append(("c", char))
            i += 1
    return tokens


def _in_class(char: str, members: str) -> bool:
    i = 0
    while i < len(members):
        if i + 2 < len(members) and members[i + 1] == "-":
            if members[i] <= char <= members[i + 2]:
                return True
            i += 3
        else:
            if members[i] == char:
                return True
            i += 1
    return False


@lru_cache(maxsize=128)
def glob_matcher(pattern: str) -> GlobMatcher:
    return GlobMatcher(pattern)
