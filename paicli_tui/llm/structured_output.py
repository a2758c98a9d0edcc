"""The ``response_format`` a request carries for a reply that must be one
JSON object (issue 16): a JSON Schema where the server takes one, plain
JSON mode where it only takes that, nothing otherwise.

Servers differ in where the schema goes. OpenAI, Ollama, vLLM and LM Studio
take ``{"type": "json_schema", "json_schema": {"schema": …}}``; llama.cpp's
servers take ``{"type": "json_object", "schema": …}`` (llama-cpp-python
0.3.36 answers the ``json_schema`` form with HTTP 500, and its schema-less
JSON mode lets a small model write any object at all). The kinds, strongest
first, are the rungs the client steps down when a server refuses one
(``weaker``).

Constrained decoding only makes a reply likelier to be valid: the reply is
still read by the same strict reader as without it."""

from __future__ import annotations

from typing import Any

from paicli_tui.config.settings import ResponseFormatKind

#: Strongest first: a refused form is replaced by the next one.
LADDER: tuple[ResponseFormatKind, ...] = ("json_schema", "json_object_schema", "json_object", "none")

#: Schemas by name in the form a decoding grammar can hold (bounded text,
#: no raw control characters, numbered plan steps): what the
#: ``json_object_schema`` rung sends under that name, also when a request
#: built for a strict ``json_schema`` server steps down to it.
GRAMMAR_FORMS: dict[str, dict[str, Any]] = {}


def register_grammar_form(name: str, schema: dict[str, Any]) -> None:
    GRAMMAR_FORMS[name] = schema


def response_format(kind: ResponseFormatKind | str, name: str, schema: dict[str, Any]) -> dict | None:
    """The request field for ``kind`` (one of ``LADDER``); ``name`` names the
    schema for the server's logs."""
    if kind == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}
    if kind == "json_object_schema":
        return {"type": "json_object", "schema": GRAMMAR_FORMS.get(name, schema)}
    if kind == "json_object":
        return {"type": "json_object"}
    return None


def grammar_schema(field: dict | None) -> dict[str, Any] | None:
    """The schema of a request field in its grammar form (None: no schema)."""
    if not field:
        return None
    if field.get("type") == "json_schema":
        inner = field.get("json_schema") or {}
        return GRAMMAR_FORMS.get(inner.get("name", ""), inner.get("schema"))
    return field.get("schema")


def kind_of(field: dict | None) -> ResponseFormatKind:
    """Which rung of ``LADDER`` a request field is (``none`` for None)."""
    if not field:
        return "none"
    if field.get("type") == "json_schema":
        return "json_schema"
    if field.get("type") == "json_object":
        return "json_object_schema" if "schema" in field else "json_object"
    return "none"


def weaker(field: dict | None) -> dict | None:
    """The same request one rung down: the schema moves to where llama.cpp
    takes it, then goes (plain JSON mode), then the field goes."""
    return at_most(field, LADDER[min(LADDER.index(kind_of(field)) + 1, len(LADDER) - 1)])


def at_most(field: dict | None, ceiling: ResponseFormatKind) -> dict | None:
    """``field`` if its rung is ``ceiling`` or weaker, else rebuilt as ``ceiling``."""
    kind = kind_of(field)
    if field is None or LADDER.index(kind) >= LADDER.index(ceiling):
        return field
    if kind == "json_schema":
        inner = field.get("json_schema") or {}
        name, schema = inner.get("name", ""), inner.get("schema") or {}
    else:
        name, schema = "", field.get("schema") or {}
    return response_format(ceiling, name, schema)
