"""The strict reader for structured model replies (P-3.2 rules 1–3).

Shared by the plan parser, worker reports and review verdicts: a reply is one
JSON object, optionally wrapped as a whole in a single ```/```json fence.
"""

from __future__ import annotations

import json
import re
from typing import Any

# JSON's own whitespace; a byte-order mark is deliberately not in it.
_JSON_WHITESPACE = " \t\r\n"
_FENCE = "```"


class StrictJsonError(ValueError):
    """The reply is not exactly one JSON object; the message says why."""


def strip_fence(text: str) -> str:
    """Remove one fence when the whole (trimmed) reply is one fenced block
    with an empty or ``json`` info string; otherwise return ``text`` as is.
    A reply that opens a fence but is not one whole fenced block is an error."""
    if not text.startswith(_FENCE):
        return text
    first_newline = text.find("\n")
    if first_newline < 0:
        raise StrictJsonError("a ``` fence with no newline after it")
    if len(text) < first_newline + 1 + len(_FENCE) or not text.endswith(_FENCE):
        raise StrictJsonError("a ``` fence that does not close at the very end (prose after it, or unclosed)")
    info = text[len(_FENCE):first_newline].strip().lower()
    if info not in ("", "json"):
        raise StrictJsonError(f"fence info string {info!r} is not empty or 'json'")
    body = text[first_newline + 1 : len(text) - len(_FENCE)]
    return body


def _reject_constant(name: str) -> Any:
    raise StrictJsonError(f"{name} is not allowed in JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise StrictJsonError(f"duplicate key {key!r}")
        seen[key] = value
    return seen


_LINE_COL = re.compile(r": line \d+ column \d+ \(char \d+\)$")


def read_json_object(reply: str | None, what: str = "reply") -> dict:
    """Parse ``reply`` into a dict under rules 1–3 or raise StrictJsonError
    whose message starts with ``what``."""
    if reply is None:
        raise StrictJsonError(f"{what} is empty")
    text = reply.strip(_JSON_WHITESPACE)
    if not text:
        raise StrictJsonError(f"{what} is empty")
    if text.startswith("\ufeff"):
        raise StrictJsonError(f"{what} starts with a byte-order mark")
    try:
        body = strip_fence(text)
    except StrictJsonError as exc:
        raise StrictJsonError(f"{what}: {exc}") from None
    body_stripped = body.strip(_JSON_WHITESPACE)
    if not body_stripped:
        raise StrictJsonError(f"{what}: the fenced block is empty")
    if not body_stripped.startswith("{"):
        kind = "an array" if body_stripped.startswith("[") else "not a JSON object"
        # Still report JSON syntax problems first for clearer messages.
        if kind == "an array":
            raise StrictJsonError(f"{what}: the root is an array, expected one JSON object")
        raise StrictJsonError(f"{what}: {kind} (prose or other text around the JSON?)")
    try:
        value = json.loads(
            body_stripped,
            object_pairs_hook=_no_duplicates,
            parse_constant=_reject_constant,
        )
    except StrictJsonError as exc:
        raise StrictJsonError(f"{what}: {exc}") from None
    except json.JSONDecodeError as exc:
        detail = "text after the JSON object" if exc.msg == "Extra data" else exc.msg
        raise StrictJsonError(f"{what}: invalid JSON: {detail} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise StrictJsonError(f"{what}: JSON nested too deeply") from None
    if not isinstance(value, dict):
        raise StrictJsonError(f"{what}: the root is not a JSON object")
    return value
