"""Splitting a ``<think>…</think>`` block at the start of a reply's content
into reasoning (issue 16 item 4).

DeepSeek-R1 distills, Qwen3 and other reasoning models served by llama.cpp
or Ollama often write their thoughts into ``content`` instead of
``reasoning_content``. Strict readers (plans, reports, verdicts) must see the
answer only, and the person should see the thinking as reasoning.

Only a block that opens the content (after optional whitespace) counts: a
``<think>`` later in the text is quoted or part of the answer and is left
alone. One ThinkSplitter serves the streamed path (fed delta by delta, so a
tag split across chunks, ``"<thi" + "nk>"``, still works) and the
non-streamed one (``split_think``), so both read a reply the same way.
"""

from __future__ import annotations

OPEN = "<think>"
CLOSE = "</think>"

# States: before the first non-space character, inside the block, after it
# (only whitespace seen since the close), and passing content through.
_START, _INSIDE, _AFTER, _PASS = range(4)

Piece = tuple[str, str]  # (kind "reasoning" | "content", text)


class ThinkSplitter:
    """Feed content fragments; get back ``(kind, text)`` pieces to show.

    Text is held back only while it may still be part of a tag: the leading
    whitespace and a partial ``<think>`` before the block is decided, a
    partial ``</think>`` inside it. The whitespace between ``</think>`` and
    the answer is dropped (the answer is what follows it).

    An unclosed block at the end of the stream is all reasoning and the
    content is empty: the model never reached an answer, and guessing where
    its thinking ended would hand a strict reader text the model did not
    mean as the answer.

    ``passing`` turns True once the rest is plain content: the caller then
    skips the splitter altogether (the streaming hot path pays one check).
    """

    __slots__ = ("_state", "_held")

    def __init__(self) -> None:
        self._state = _START
        self._held = ""

    @property
    def passing(self) -> bool:
        return self._state == _PASS

    def feed(self, text: str) -> list[Piece]:
        if self._state == _PASS:
            return [("content", text)] if text else []
        held = self._held + text
        self._held = ""
        if self._state == _START:
            return self._start(held)
        if self._state == _INSIDE:
            return self._inside(held)
        return self._after(held)

    def finish(self) -> list[Piece]:
        """End of the reply: whatever was held back, as what it turned out to be."""
        held, self._held = self._held, ""
        state, self._state = self._state, _PASS
        if not held:
            return []
        if state == _INSIDE:
            return [("reasoning", held)]
        if state == _START:
            # Only whitespace, or a "<thi" that never became a tag: content.
            return [("content", held)]
        return []  # _AFTER holds only whitespace after the block

    def _start(self, text: str) -> list[Piece]:
        body = text.lstrip()
        if not body:
            self._held = text
            return []
        if body[0] != "<":  # the cheap common case: an ordinary answer
            self._state = _PASS
            return [("content", text)]
        if body.startswith(OPEN):
            self._state = _INSIDE
            return self._inside(body[len(OPEN):])
        if len(body) < len(OPEN) and OPEN.startswith(body):
            self._held = text  # maybe the first half of the tag
            return []
        self._state = _PASS
        return [("content", text)]

    def _inside(self, text: str) -> list[Piece]:
        end = text.find(CLOSE)
        if end >= 0:
            pieces: list[Piece] = [("reasoning", text[:end])] if end else []
            self._state = _AFTER
            return pieces + self._after(text[end + len(CLOSE):])
        keep = _partial_suffix(text, CLOSE)
        if keep:
            self._held = text[-keep:]
            text = text[:-keep]
        return [("reasoning", text)] if text else []

    def _after(self, text: str) -> list[Piece]:
        body = text.lstrip()
        if not body:
            self._held = ""  # whitespace between the block and the answer
            return []
        self._state = _PASS
        return [("content", body)]


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest end of ``text`` that is a proper start of ``tag``."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:size]):
            return size
    return 0


def split_think(content: str) -> tuple[str, str]:
    """``(reasoning, content)`` of a whole reply, read as the stream is."""
    if not content or content.lstrip()[:1] != "<":
        return "", content
    splitter = ThinkSplitter()
    reasoning: list[str] = []
    answer: list[str] = []
    for kind, text in splitter.feed(content) + splitter.finish():
        (reasoning if kind == "reasoning" else answer).append(text)
    return "".join(reasoning), "".join(answer)
