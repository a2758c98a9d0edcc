"""The JSON Schema for a plan's shape (P-3.2 rules 4–7, shape only).

Rule 4's precedence is part of the schema: entries come from ``steps`` when it
is a non-empty array, otherwise from ``tasks``; only the chosen array's
entries are checked. Blank strings, repeated ids, unknown dependencies and
cycles are checked in code (parser.py).
"""

from __future__ import annotations

from jsonschema import Draft202012Validator

TASK_SCHEMA: dict = {
    "type": "object",
    "required": ["id", "description"],
    "properties": {
        "id": {"type": "string"},
        "description": {"type": "string"},
        "type": {"type": "string"},
        "dependencies": {"type": "array", "items": {"type": "string"}},
        "check": {"type": "string"},
    },
    # Unknown extra fields are ignored (rule 6).
    "additionalProperties": True,
}


def _non_empty_array(key: str) -> dict:
    return {"required": [key], "properties": {key: {"type": "array", "minItems": 1}}}


PLAN_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "paicli plan",
    "type": "object",
    "if": _non_empty_array("steps"),
    "then": {"properties": {"steps": {"items": TASK_SCHEMA}}},
    "else": {
        "if": _non_empty_array("tasks"),
        "then": {"properties": {"tasks": {"items": TASK_SCHEMA}}},
        "else": _non_empty_array("tasks"),
    },
}

Draft202012Validator.check_schema(PLAN_SCHEMA)
PLAN_VALIDATOR = Draft202012Validator(PLAN_SCHEMA)

#: The task types a plan reply names (TaskType's values).
PLAN_TYPES = ("FILE_READ", "FILE_WRITE", "COMMAND", "ANALYSIS", "VERIFICATION")

#: The shape the planner prompts ask for, sent as ``response_format`` (issue
#: 16). Narrower than PLAN_SCHEMA so that it suits strict servers (OpenAI's
#: strict mode has no if/then/else and wants every property required, no
#: extra ones): every reply it allows passes PLAN_SCHEMA, and parse_plan still
#: checks the rest (blank strings, repeated or unknown ids, cycles).
PLAN_REPLY_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"},
        "steps": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "description": {"type": "string"},
                    "type": {"type": "string", "enum": list(PLAN_TYPES)},
                    "dependencies": {"type": "array", "items": {"type": "string"}},
                    # Strict servers want every field required: "" is no check.
                    "check": {"type": "string"},
                },
                "required": ["id", "description", "type", "dependencies", "check"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["summary", "steps"],
    "additionalProperties": False,
}
Draft202012Validator.check_schema(PLAN_REPLY_SCHEMA)

#: Order in which a step's fields are reported, so the first error is the
#: first one a reader meets.
FIELD_ORDER = {"id": 0, "description": 1, "type": 2, "dependencies": 3, "check": 4}


def entries_key(data: dict) -> str | None:
    """Which array holds the tasks (rule 4), or None when neither qualifies."""
    for key in ("steps", "tasks"):
        value = data.get(key)
        if isinstance(value, list) and value:
            return key
    return None
