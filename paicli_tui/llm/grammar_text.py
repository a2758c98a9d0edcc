"""JSON Schema pieces that survive being turned into a decoding grammar.

llama-cpp-python's schema-to-grammar converter lets a plain
``{"type": "string"}`` hold raw control characters (a newline inside the
quotes), which no JSON reader accepts ("Invalid control character"); a
``pattern`` is applied to the raw characters between the quotes. So a text
field is a pattern that excludes control characters, quotes and
backslashes (the same on the raw and the decoded side), begins with a
non-blank character, and is bounded so a reply cannot ramble to its output
limit."""

from __future__ import annotations


#: The longest bound llama.cpp's grammar takes: a bound of N nests N
#: optional rules, and at about 1,200 the server process crashed (measured,
#: llama-cpp-python 0.3.36: the connection drops, the server is gone).
MAX_BOUND = 800


def bounded_text(limit: int) -> dict:
    """One line of 1 to ``limit`` characters with no quote or backslash."""
    if not 1 <= limit <= MAX_BOUND:
        raise ValueError(f"a text bound must be 1 to {MAX_BOUND} characters, not {limit}")
    return {"type": "string", "pattern": f'^[^\\x00-\\x20"\\\\][^\\x00-\\x1F"\\\\]{{0,{limit - 1}}}$'}


def bounded_list(limit: int, items: dict) -> dict:
    return {"type": "array", "items": items, "maxItems": limit}
