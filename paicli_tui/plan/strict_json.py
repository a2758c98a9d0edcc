"""The strict reader for structured model replies (P-3.2 rules 1–3).

Shared by the plan parser, worker reports and review verdicts: a reply is one
JSON object, optionally wrapped as a whole in a single ```/```json fence.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = "```"
# Inside the fence the JSON grammar rules: only its own whitespace may
# surround the value (rule 1's trimming of the whole reply is broader).
_JSON_WHITESPACE = " \t\r\n"
# Keys that can be shown as `.key` in a path; anything else is shown quoted.
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class StrictJsonError(ValueError):
    """The reply is not exactly one JSON object; the message says why.

    ``path`` locates the object holding a duplicate key (e.g. ``("steps", 2)``
    for the third step) so callers can name the step; it is ``()`` otherwise.
    """

    def __init__(self, message: str, path: tuple[str | int, ...] = (), detail: str = "") -> None:
        super().__init__(message)
        self.path = path
        #: The message without the ``what`` prefix and path.
        self.detail = detail or message


def format_path(path: tuple[str | int, ...]) -> str:
    """``("steps", 2, "meta")`` → ``steps[2].meta``; the root is ``(root)``."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _PLAIN_KEY.match(part):
            text += f".{part}" if text else part
        else:
            text += f"[{json.dumps(part, ensure_ascii=False)}]"
    return text or "(root)"


def strip_fence(text: str) -> str:
    """Remove one fence when the whole (trimmed) reply is one fenced block
    with an empty or ``json`` info string; otherwise return ``text`` as is.
    A reply that opens a fence but is not one whole fenced block is an error."""
    if not text.startswith(_FENCE):
        return text
    first_newline = text.find("\n")
    if first_newline < 0:
        raise StrictJsonError("a ``` fence with no newline after it")
    # The closing fence must come after the opening line, not overlap it.
    if len(text) < first_newline + 1 + len(_FENCE) or not text.endswith(_FENCE):
        raise StrictJsonError("a ``` fence that does not close at the very end (prose after it, or unclosed)")
    info = text[len(_FENCE):first_newline].strip().lower()
    if info not in ("", "json"):
        raise StrictJsonError(f"fence info string {info!r} is not empty or 'json'")
    return text[first_newline + 1 : len(text) - len(_FENCE)]


class _DuplicateKeyObject(dict):
    """A parsed object that had a repeated key; remembered so the error can
    say where it was instead of only which key."""

    duplicate_key: str = ""


def _collect_pairs(pairs: list[tuple[str, Any]]) -> dict:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            marked = _DuplicateKeyObject(seen)
            marked.duplicate_key = key
            return marked
        seen[key] = value
    return seen


def _find_duplicate(value: Any, path: tuple[str | int, ...] = ()) -> tuple[tuple[str | int, ...], str] | None:
    """First object (outermost, in document order) with a repeated key."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, path)]
    while stack:
        current, where = stack.pop()
        if isinstance(current, _DuplicateKeyObject):
            return where, current.duplicate_key
        if isinstance(current, dict):
            children = [(child, where + (key,)) for key, child in current.items()]
        elif isinstance(current, list):
            children = [(child, where + (i,)) for i, child in enumerate(current)]
        else:
            continue
        stack.extend(reversed(children))
    return None


def _reject_constant(name: str) -> Any:
    raise StrictJsonError(f"{name} is not allowed in JSON")


def _describe_non_object(body: str) -> str:
    if body.startswith("["):
        return "the root is an array, expected one JSON object"
    if body.startswith("~~~"):
        return "a ~~~ fence is not accepted (only ``` or ```json around the whole reply)"
    if _FENCE in body:
        return "text outside the ``` fence (the whole reply must be one fenced block)"
    if "{" in body:
        return "text before the JSON object (expected the reply to be only the object)"
    return "not a JSON object"


def read_json_object(reply: str | None, what: str = "reply") -> dict:
    """Parse ``reply`` into a dict under rules 1–3 or raise StrictJsonError
    whose message starts with ``what``."""
    if reply is None:
        raise StrictJsonError(f"{what} is empty")
    # str.strip() trims Unicode whitespace; U+FEFF is not whitespace to it.
    text = reply.strip()
    if not text:
        raise StrictJsonError(f"{what} is empty")
    if text.startswith("\ufeff"):
        raise StrictJsonError(f"{what} starts with a byte-order mark")
    try:
        body = strip_fence(text).strip(_JSON_WHITESPACE)
    except StrictJsonError as exc:
        raise StrictJsonError(f"{what}: {exc}") from None
    if not body:
        raise StrictJsonError(f"{what}: the fenced block is empty")
    if not body.startswith("{"):
        raise StrictJsonError(f"{what}: {_describe_non_object(body)}")
    try:
        value = json.loads(body, object_pairs_hook=_collect_pairs, parse_constant=_reject_constant)
    except StrictJsonError as exc:
        raise StrictJsonError(f"{what}: {exc}") from None
    except json.JSONDecodeError as exc:
        detail = "text after the JSON object" if exc.msg == "Extra data" else exc.msg
        raise StrictJsonError(f"{what}: invalid JSON: {detail} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise StrictJsonError(f"{what}: JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer literal longer than Python converts
        raise StrictJsonError(f"{what}: invalid JSON: {str(exc).split(';')[0]}") from None
    if not isinstance(value, dict):
        raise StrictJsonError(f"{what}: the root is not a JSON object")
    duplicate = _find_duplicate(value)
    if duplicate is not None:
        path, key = duplicate
        detail = f"duplicate key {json.dumps(key, ensure_ascii=False)}"
        where = f"{format_path(path)}: " if path else ""
        raise StrictJsonError(f"{what}: {where}{detail}", path, detail)
    return value
