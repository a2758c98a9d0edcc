"""Whether a planner's ``check`` reads as a command line at all.

A small local model fills the optional check with whatever text it has
left (``[``, ``...``, ``[]}]} } 3 more``); run as written, each such check
fails, and the step is retried until its attempts are gone without the
reviewer ever seeing it. A check that cannot be a command is dropped with
a warning the review shows, so the person can write one; what a real
command line does is for the check run to find out."""

from __future__ import annotations

import re
import shlex

# A program name, a path to one, or NAME=value before it: what a command starts with.
_PROGRAM = re.compile(r"[A-Za-z0-9_.+/@:=~-]*[A-Za-z0-9][A-Za-z0-9_.+/@:=~-]*")
_SHOWN = 60


def unrunnable_check(check: str) -> str:
    """Why ``check`` is not a command line, or "" when it may be one."""
    try:
        words = shlex.split(check)
    except ValueError:  # shlex's only complaint: a quote or escape left open
        return _dropped(check, "has an unclosed quote")
    if not words:
        return ""
    first = words[0]
    if first in ("[", "[[") and words[-1] == ("]" if first == "[" else "]]"):
        return ""
    if first in ("!", "(", "{") and len(words) > 1:  # a negation or group around a real command
        return unrunnable_check(shlex.join(words[1:]))
    if first.startswith("$") and len(first) > 1:  # $PYTHON -m pytest
        return ""
    if _PROGRAM.fullmatch(first) is None:
        return _dropped(check, "does not start with a program")
    return ""


def _dropped(check: str, why: str) -> str:
    shown = check if len(check) <= _SHOWN else check[: _SHOWN - 1] + "…"
    return f"check dropped: `{shown}` {why}; write one in the review if the step needs it"
