"""The JSON Schemas of a worker report (P-5.5) and a review verdict (P-5.6),
sent as ``response_format`` (issue 16); team/structured.py reads the replies.

Both suit strict servers (OpenAI's strict mode: an object at the root, every
property required, no extra ones), so an optional field is a nullable one.
A completed report written to this schema carries ``"reason": null``, which
P-5.5 reads as no reason. The strict readers still check every reply."""

from __future__ import annotations

from jsonschema import Draft202012Validator

from paicli_tui.llm.grammar_text import bounded_list, bounded_text
from paicli_tui.llm.structured_output import register_grammar_form

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

#: The grammar forms (llm/grammar_text.py), sent where the server decodes
#: under a grammar (llama.cpp). A completed report has ``"reason": null``
#: by construction (a small model otherwise writes "completed" there too,
#: which P-5.5 rejects); text is bounded and one line; a verdict's largest
#: reply (about 900 characters) fits the report_max_tokens of a local run.
WORKER_REPORT_GRAMMAR_SCHEMA: dict = {
    "anyOf": [
        {"type": "object",
         "properties": {"status": {"const": "completed"}, "result": bounded_text(600), "reason": {"type": "null"}},
         "required": ["status", "result", "reason"], "additionalProperties": False},
        {"type": "object",
         "properties": {"status": {"const": "blocked"}, "result": bounded_text(600), "reason": bounded_text(300)},
         "required": ["status", "result", "reason"], "additionalProperties": False},
    ]
}

REVIEW_VERDICT_GRAMMAR_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "summary": bounded_text(160),
        "issues": bounded_list(3, bounded_text(120)),
        "suggestions": bounded_list(3, bounded_text(120)),
    },
    "required": ["approved", "summary", "issues", "suggestions"],
    "additionalProperties": False,
}

for _schema in (WORKER_REPORT_GRAMMAR_SCHEMA, REVIEW_VERDICT_GRAMMAR_SCHEMA):
    Draft202012Validator.check_schema(_schema)
register_grammar_form("paicli_worker_report", WORKER_REPORT_GRAMMAR_SCHEMA)
register_grammar_form("paicli_review_verdict", REVIEW_VERDICT_GRAMMAR_SCHEMA)
