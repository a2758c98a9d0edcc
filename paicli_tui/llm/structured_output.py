"""The ``response_format`` a request carries for a reply that must be one
JSON object (issue 16): a JSON Schema where the server takes one, plain
JSON mode where it only takes that, nothing otherwise.

Constrained decoding only makes a reply likelier to be valid: the reply is
still read by the same strict reader as without it."""

from __future__ import annotations

from typing import Any

from paicli_tui.config import ResponseFormatKind


def response_format(kind: ResponseFormatKind | str, name: str, schema: dict[str, Any]) -> dict | None:
    """The request field for ``kind`` (``json_schema``, ``json_object`` or
    ``none``); ``name`` names the schema for the server's logs."""
    if kind == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}
    if kind == "json_object":
        return {"type": "json_object"}
    return None
