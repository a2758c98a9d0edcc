"""The plan schema llama.cpp decodes as a grammar (plan/ordered_schema.py):
every reply it allows is a plan the strict reader accepts, what it refuses
includes the mistakes a small model made (unknown ids, blank descriptions,
raw control characters), and each preset's planner gets the form its
server takes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from paicli_tui.config.settings import PRESETS, Settings
from paicli_tui.plan.ordered_schema import MAX_STEPS, ORDERED_PLAN_SCHEMA
from paicli_tui.plan.parser import parse_plan
from paicli_tui.plan.planner import planner_options
from paicli_tui.plan.schema import PLAN_REPLY_SCHEMA, PLAN_TYPES, PLAN_VALIDATOR

ORDERED = Draft202012Validator(ORDERED_PLAN_SCHEMA)
FIRST = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in '"\\') + "éü→"
LATER = FIRST + " "


def text(limit: int):
    return st.builds(lambda head, tail: head + tail, st.sampled_from(FIRST), st.text(LATER, max_size=limit - 1))


@st.composite
def ordered_plans(draw):
    count = draw(st.integers(1, MAX_STEPS))
    steps = []
    for number in range(1, count + 1):
        earlier = [f"t{n}" for n in range(1, number)]
        steps.append({
            "id": f"t{number}",
            "description": draw(text(240)),
            "type": draw(st.sampled_from(PLAN_TYPES)),
            "dependencies": draw(st.lists(st.sampled_from(earlier), max_size=len(earlier))) if earlier else [],
        })
    return {"summary": draw(text(160)), "steps": steps}


@settings(max_examples=150, deadline=None)
@given(ordered_plans())
def test_every_plan_the_grammar_form_allows_is_read_by_the_strict_reader(plan):
    assert ORDERED.is_valid(plan)
    assert PLAN_VALIDATOR.is_valid(plan)
    parsed = parse_plan(json.dumps(plan, ensure_ascii=False), "task")
    assert len(parsed.tasks) == len(plan["steps"])


def step(number: int, description: str = "do it", dependencies=(), **extra) -> dict:
    return {"id": f"t{number}", "description": description, "type": "ANALYSIS", "dependencies": list(dependencies), **extra}


@pytest.mark.parametrize("why, steps", [
    ("an id the plan never declares", [step(1, dependencies=["t2"])]),
    ("a file name as a dependency", [step(1), step(2, dependencies=["notes.txt"])]),
    ("a step depending on itself", [step(1), step(2, dependencies=["t2"])]),
    ("a step depending on a later one", [step(1, dependencies=["t2"]), step(2)]),
    ("ids out of order", [step(2), step(1)]),
    ("an id not numbered", [{**step(1), "id": "read"}]),
    ("a blank description", [step(1, "")]),
    ("a description that starts blank", [step(1, " x")]),
    ("a raw newline", [step(1, "line one\nline two")]),
    ("an unknown type", [{**step(1), "type": "THINK"}]),
    ("an extra field", [step(1, note="x")]),
    ("no steps", []),
    ("too many steps", [step(n, dependencies=[]) for n in range(1, MAX_STEPS + 2)]),
])
def test_the_grammar_form_refuses_what_small_models_wrote(why, steps):
    assert not ORDERED.is_valid({"summary": "s", "steps": steps}), why


def test_text_fields_are_bounded_so_a_step_cannot_ramble_to_the_output_limit():
    assert ORDERED.is_valid({"summary": "s" * 160, "steps": [step(1, "d" * 240)]})
    assert not ORDERED.is_valid({"summary": "s", "steps": [step(1, "d" * 241)]})
    assert not ORDERED.is_valid({"summary": "s" * 161, "steps": [step(1)]})


@pytest.mark.parametrize("provider, structured, form", [
    ("llamacpp", "auto", {"type": "json_object", "schema": ORDERED_PLAN_SCHEMA}),
    ("openai", "auto", {"type": "json_schema", "json_schema": {"name": "paicli_plan", "strict": True, "schema": PLAN_REPLY_SCHEMA}}),
    ("ollama", "auto", {"type": "json_schema", "json_schema": {"name": "paicli_plan", "strict": True, "schema": PLAN_REPLY_SCHEMA}}),
    ("deepseek", "auto", {"type": "json_object"}),
    ("custom", "json_object_schema", {"type": "json_object", "schema": ORDERED_PLAN_SCHEMA}),
    ("llamacpp", "off", None),
])
def test_each_preset_plans_in_the_form_its_server_takes(provider, structured, form):
    # The full profile's form; the compact one's is the test below.
    settings = Settings(provider=provider, structured_output=structured, local_profile="off")
    assert planner_options(settings)["response_format"] == form


def test_only_llama_cpp_is_sent_the_schema_beside_json_object():
    takers = {name for name, preset in PRESETS.items() if preset["response_format"] == "json_object_schema"}
    assert takers == {"llamacpp"}


@pytest.mark.parametrize("structured", ["json_object_schema", "json_schema"])
def test_the_compact_profile_sends_at_most_eight_steps_in_the_grammar_form_also_after_a_step_down(structured):
    from paicli_tui.llm.structured_output import at_most
    from paicli_tui.plan.ordered_schema import LOCAL_MAX_STEPS, ordered_plan_schema

    sent = planner_options(Settings(provider="custom", structured_output=structured, local_profile="on"))
    grammar = at_most(sent["response_format"], "json_object_schema")
    assert grammar == {"type": "json_object", "schema": ordered_plan_schema(LOCAL_MAX_STEPS)}
    assert len(grammar["schema"]["properties"]["steps"]["anyOf"]) == LOCAL_MAX_STEPS == 8
