"""Reports, verdicts and plans in the form a decoding grammar holds: sent
under their names on the json_object_schema rung, also after a strict
json_schema request steps down to it; converted by llama-cpp-python's own
converter without falling back to "any JSON"; every reply they allow read
by the strict readers."""

from __future__ import annotations

import json
import re

import pytest
from jsonschema import Draft202012Validator

from paicli_tui.llm.structured_output import at_most, response_format, weaker
from paicli_tui.plan.ordered_schema import ORDERED_PLAN_SCHEMA
from paicli_tui.plan.schema import PLAN_REPLY_SCHEMA
from paicli_tui.team.reply_schemas import (
    REVIEW_VERDICT_GRAMMAR_SCHEMA,
    REVIEW_VERDICT_SCHEMA,
    WORKER_REPORT_GRAMMAR_SCHEMA,
    WORKER_REPORT_SCHEMA,
)
from paicli_tui.team.structured import parse_review_verdict, parse_worker_report

FORMS = [("paicli_worker_report", WORKER_REPORT_SCHEMA, WORKER_REPORT_GRAMMAR_SCHEMA),
         ("paicli_review_verdict", REVIEW_VERDICT_SCHEMA, REVIEW_VERDICT_GRAMMAR_SCHEMA),
         ("paicli_plan", PLAN_REPLY_SCHEMA, ORDERED_PLAN_SCHEMA)]


@pytest.mark.parametrize("name, strict, grammar", FORMS)
def test_stepping_down_sends_the_grammar_form_whatever_the_preset(name, strict, grammar):
    sent = response_format("json_schema", name, strict)
    assert sent["json_schema"]["schema"] is strict
    assert weaker(sent) == {"type": "json_object", "schema": grammar}
    assert at_most(sent, "json_object_schema") == {"type": "json_object", "schema": grammar}
    assert response_format("json_object_schema", name, strict) == {"type": "json_object", "schema": grammar}


def test_a_completed_report_carries_no_reason_and_parses():
    validator = Draft202012Validator(WORKER_REPORT_GRAMMAR_SCHEMA)
    completed = {"status": "completed", "result": "Renamed greet to welcome in app.py", "reason": None}
    assert validator.is_valid(completed)
    assert not validator.is_valid({**completed, "reason": "completed"})
    assert not validator.is_valid({**completed, "result": "two\nlines"}), "no raw control characters"
    assert not validator.is_valid({**completed, "result": "x" * 601}), "bounded"
    assert parse_worker_report(json.dumps(completed)).status == "completed"


def test_the_largest_verdict_fits_a_local_output_limit():
    validator = Draft202012Validator(REVIEW_VERDICT_GRAMMAR_SCHEMA)
    largest = {"approved": False, "summary": "s" * 160, "issues": ["i" * 120] * 3, "suggestions": ["g" * 120] * 3}
    assert validator.is_valid(largest)
    assert not validator.is_valid({**largest, "issues": ["i"] * 4})
    # about 2.5 characters a token for such text: well inside 512 tokens
    assert len(json.dumps(largest)) / 2.5 < 512
    assert parse_review_verdict(json.dumps(largest)).approved is False


@pytest.mark.parametrize("name, strict, grammar", FORMS)
def test_each_grammar_form_converts_without_falling_back(name, strict, grammar):
    llama_grammar = pytest.importorskip("llama_cpp.llama_grammar", reason="llama-cpp-python is not installed")
    text = llama_grammar.json_schema_to_gbnf(json.dumps(grammar))
    # A schema that cannot convert becomes "any JSON" silently: its literals
    # must be in the grammar itself.
    literal = {"paicli_worker_report": '\\"blocked\\"', "paicli_review_verdict": '\\"suggestions\\"',
               "paicli_plan": '\\"t8\\"'}[name]
    assert literal in text
    assert "x00-\\x1F" in text or "x00-\\x20" in text, "text fields exclude control characters"


def test_no_text_bound_is_long_enough_to_crash_the_server():
    from paicli_tui.llm.grammar_text import MAX_BOUND, bounded_text

    with pytest.raises(ValueError, match="at most|1 to 800"):
        bounded_text(MAX_BOUND + 1)
    for _, _, grammar in FORMS:
        for bound in re.findall(r"\{0,(\d+)\}", json.dumps(grammar)):
            assert int(bound) < MAX_BOUND
