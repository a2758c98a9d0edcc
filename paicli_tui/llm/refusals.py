"""Which optional request field an error reply refuses (see llm/client.py:
``response_format`` and ``max_tokens`` are dropped or stepped down once per
session when a server refuses them)."""

from __future__ import annotations

import re

from paicli_tui.llm.types import ModelError, ModelHTTPError

#: A 400 that names structured output: the field, its types, llama.cpp's
#: "grammar"/"schema" conversion errors.
_NAMES_RESPONSE_FORMAT = re.compile(r"response_format|response format|json_schema|json_object|\bschema\b|grammar")
#: A 5xx that is the server refusing to read response_format (llama-cpp-python's
#: request validation answers 500), not a failure to retry.
_NAMES_FIELD_IN_5XX = re.compile(r"response_format|json_schema|json_object")
#: A refusal aimed at one form of response_format rather than at the field:
#: a weaker form may still be taken.
NAMES_A_FORM = re.compile(r"json_schema|json_object|\bschema\b|\btype\b")
#: A 400 that refuses some field without naming it.
_REFUSES_A_FIELD = re.compile(
    r"unsupported|not supported|unrecognized|unknown (?:field|parameter|argument|key)|extra (?:fields|inputs)"
)


def refused_field(error: ModelError, body: dict, limit_key: str | None) -> str | None:
    """The optional field a 400 reply (or a 5xx naming ``response_format``)
    refuses, when the body carries it."""
    if not isinstance(error, ModelHTTPError):
        return None
    text = str(error).lower()
    if error.status >= 500:
        return "response_format" if "response_format" in body and _NAMES_FIELD_IN_5XX.search(text) else None
    if error.status != 400:
        return None
    if "response_format" in body and _NAMES_RESPONSE_FORMAT.search(text):
        return "response_format"
    if limit_key is not None and limit_key in body and limit_key in text:
        return "max_tokens"
    if "response_format" in body and _REFUSES_A_FIELD.search(text):
        return "response_format"  # the field this client adds that servers differ on most
    return None
