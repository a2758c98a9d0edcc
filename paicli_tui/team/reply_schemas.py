"""The JSON Schemas of a worker report (P-5.5) and a review verdict (P-5.6),
sent as ``response_format`` (issue 16); team/structured.py reads the replies.

Both suit strict servers (OpenAI's strict mode: an object at the root, every
property required, no extra ones), so an optional field is a nullable one.
A completed report written to this schema carries ``"reason": null``, which
P-5.5 reads as no reason. The strict readers still check every reply."""

from __future__ import annotations

from jsonschema import Draft202012Validator

WORKER_REPORT_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": ["completed", "blocked"]},
        "result": {"type": "string"},
        "reason": {"type": ["string", "null"]},
    },
    "required": ["status", "result", "reason"],
    "additionalProperties": False,
}

REVIEW_VERDICT_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "summary": {"type": "string"},
        "issues": {"type": "array", "items": {"type": "string"}},
        "suggestions": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["approved", "summary", "issues", "suggestions"],
    "additionalProperties": False,
}

for _schema in (WORKER_REPORT_SCHEMA, REVIEW_VERDICT_SCHEMA):
    Draft202012Validator.check_schema(_schema)
