"""One word for how a task ended, said the same everywhere (run screen rows,
the summary header and lines, transcript and headless lines), and a one-line
plain-text preview of a result that was written in Markdown.

A task the cancel interrupted is *cancelled* (the engine records it SKIPPED
with the error "cancelled"); one that never started is *skipped*, whatever
the reason it gives.
"""

from __future__ import annotations

import re

#: The error the executor gives the task a cancel interrupted.
CANCELLED_ERROR = "cancelled"
#: The error of a task the run never started because it was cancelled first.
NOT_STARTED_ERROR = "not started: the run was cancelled"

_FENCE = re.compile(r"^\s*(```|~~~).*$", re.MULTILINE)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+", re.MULTILINE)
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+", re.MULTILINE)
_QUOTE = re.compile(r"^\s*>\s?", re.MULTILINE)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|~~)(?=\S)(.+?)(?<=\S)\1")
_CODE = re.compile(r"`+([^`]*)`+")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$", re.MULTILINE)
_TABLE_BAR = re.compile(r"\s*\|\s*")
_HELD = re.compile(r"\x00(\d+)\x00")


def outcome_of(status: str, error: str = "") -> str:
    """``completed``, ``failed``, ``blocked``, ``cancelled``, ``skipped``,
    or (still going) ``running`` / ``pending``."""
    status = str(getattr(status, "value", status)).upper()
    if status == "SKIPPED":
        return "cancelled" if error == CANCELLED_ERROR else "skipped"
    return status.lower()


def items_on_one_line(text: str) -> str:
    """A Markdown list (a reviewer's feedback) as one line: items joined by
    "; ", their list marks dropped; nothing cut."""
    items = [_LIST_MARK.sub("", line).strip() for line in text.splitlines()]
    return "; ".join(item for item in items if item)


def plain_preview(text: str, limit: int = 120) -> str:
    """``text`` without its Markdown marks, on one line, cut at a word
    boundary to at most ``limit`` characters plus "…"."""
    plain = _FENCE.sub("", text)
    plain = _RULE.sub("", plain)
    plain = _HEADING.sub("", plain)
    plain = _QUOTE.sub("", plain)
    plain = _LIST_MARK.sub("", plain)
    plain = _LINK.sub(r"\1", plain)
    # Code is shown as written: its ``**/*.py`` is a glob, not emphasis.
    spans: list[str] = []

    def hold(match: re.Match) -> str:
        spans.append(match.group(1))
        return f"\x00{len(spans) - 1}\x00"

    plain = _CODE.sub(hold, plain)
    for _ in range(2):  # **_nested_** marks
        plain = _EMPHASIS.sub(r"\2", plain)
    plain = _TABLE_BAR.sub(" ", plain)
    plain = _HELD.sub(lambda match: spans[int(match.group(1))], plain)
    flat = " ".join(plain.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-—") + "…"
