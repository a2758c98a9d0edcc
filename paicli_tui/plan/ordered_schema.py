"""The plan schema in the form a grammar can hold (issue 16): sent where
the server turns the schema into a decoding grammar (llama.cpp's servers,
the ``json_object_schema`` form), where only what it allows can be written.

The flat PLAN_REPLY_SCHEMA leaves a step's ``dependencies`` free strings,
and a small model fills them with file names or ids it never declared: on
SmolLM2-135M most rejected plans were "unknown id" (bench/local_plans.py).
A grammar cannot refer from one string to another, so this schema numbers
the steps instead: step N has the id ``tN`` and may depend only on
``t1`` … ``tN-1``. Every plan is still expressible (list a graph's tasks in
dependency order), ids are renumbered after parsing anyway (the planner
prompt says so), and unknown ids and cycles cannot be written. Text fields
exclude control characters, quotes and backslashes, which llama-cpp-python's
grammar would otherwise let through raw (invalid JSON), begin with a
non-blank character and are bounded, so a step cannot ramble to the output
limit.

Constrained decoding only narrows what the model can write: every reply
this schema allows passes PLAN_SCHEMA, and parse_plan still checks it all."""

from __future__ import annotations

from jsonschema import Draft202012Validator

from paicli_tui.llm.grammar_text import bounded_text
from paicli_tui.llm.structured_output import register_grammar_form
from paicli_tui.plan.schema import PLAN_TYPES

#: Steps a plan may have in this form (the planner prompt asks for 1 to 10).
MAX_STEPS = 12
#: Steps under the compact local profile: a small model asked for more
#: fills them with the same few steps again.
LOCAL_MAX_STEPS = 8


_text = bounded_text


def _step(number: int) -> dict:
    earlier = [f"t{n}" for n in range(1, number)]
    dependencies = (
        {"type": "array", "items": {"enum": earlier}, "maxItems": len(earlier)} if earlier else {"const": []}
    )
    return {
        "type": "object",
        "properties": {
            "id": {"const": f"t{number}"},
            "description": {"$ref": "#/$defs/description"},
            "type": {"$ref": "#/$defs/type"},
            "dependencies": dependencies,
            # Optional: a grammar text cannot be empty, and most steps have no check.
            "check": {"$ref": "#/$defs/check"},
        },
        "required": ["id", "description", "type", "dependencies"],
        "additionalProperties": False,
    }


def _steps(count: int) -> dict:
    # An exact tuple: minItems = maxItems, no "items" (llama-server's converter
    # reads a present "items" before "prefixItems").
    return {"type": "array", "prefixItems": [_step(n) for n in range(1, count + 1)], "minItems": count, "maxItems": count}


def ordered_plan_schema(max_steps: int = MAX_STEPS) -> dict:
    return {
        "type": "object",
        "$defs": {"description": _text(240), "type": {"enum": list(PLAN_TYPES)}, "check": _text(200)},
        "properties": {
            "summary": _text(160),
            "steps": {"anyOf": [_steps(count) for count in range(1, max_steps + 1)]},
        },
        "required": ["summary", "steps"],
        "additionalProperties": False,
    }


ORDERED_PLAN_SCHEMA: dict = ordered_plan_schema()
Draft202012Validator.check_schema(ORDERED_PLAN_SCHEMA)
#: The names plan requests carry: what the grammar rung sends under each,
#: also when a request made for a strict server steps down to it, whatever
#: the preset.
PLAN_FORM, LOCAL_PLAN_FORM = "paicli_plan", "paicli_plan_local"
register_grammar_form(PLAN_FORM, ORDERED_PLAN_SCHEMA)
register_grammar_form(LOCAL_PLAN_FORM, ordered_plan_schema(LOCAL_MAX_STEPS))
