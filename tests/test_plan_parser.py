"""P-3.2: accept and reject cases for every numbered rule of strict plan parsing."""

from __future__ import annotations

import json

import pytest

from paicli_tui.plan import (
    Plan,
    PlanError,
    StrictJsonError,
    TaskType,
    parse_plan,
    plan_from_dict,
    read_json_object,
    validate_plan_dict,
)


def step(task_id, description="do the thing", **fields) -> dict:
    return {"id": task_id, "description": description, **fields}


def reply(*steps, key="steps", **extra) -> str:
    return json.dumps({**extra, key: list(steps)})


SIMPLE = reply(step("a"), step("b", dependencies=["a"]))


def rejected(text: str, prefix: str = "task") -> PlanError:
    with pytest.raises(PlanError) as info:
        parse_plan(text, prefix)
    message = str(info.value)
    assert "\n" not in message, "errors stay on one line"
    return info.value


# --- rule 1: empty, blank, whitespace, byte-order mark ----------------------


@pytest.mark.parametrize("text", ["", " ", "\n\t  \r\n"])
def test_rule1_empty_or_blank_reply_is_rejected(text):
    assert "empty" in str(rejected(text))


def test_rule1_surrounding_whitespace_is_trimmed():
    plan = parse_plan("\n\n   " + SIMPLE + "  \n\t")
    assert plan.ids == ["task_1", "task_2"]


def test_rule1_any_unicode_whitespace_around_the_reply_is_trimmed():
    assert len(parse_plan("\u2003\x0c" + SIMPLE + "\u00a0\x0b").tasks) == 2


def test_inside_the_fence_only_json_whitespace_may_surround_the_object():
    rejected(f"```json\n\u00a0{SIMPLE}\n```")


@pytest.mark.parametrize("text", ["\ufeff" + SIMPLE, "  \n\ufeff" + SIMPLE])
def test_rule1_byte_order_mark_is_not_whitespace(text):
    assert "byte-order mark" in str(rejected(text))


# --- rule 2: the whole-reply fence ------------------------------------------


@pytest.mark.parametrize(
    "opening", ["```", "```json", "```JSON", "```Json", "```  json  ", "```\tJSON"]
)
def test_rule2_fence_with_empty_or_json_info_string_is_removed(opening):
    plan = parse_plan(f"{opening}\n{SIMPLE}\n```")
    assert [t.original_id for t in plan.tasks] == ["a", "b"]


def test_rule2_fence_then_surrounding_whitespace_trimmed():
    assert len(parse_plan(f"  \n```json\r\n{SIMPLE}\r\n```\n\n").tasks) == 2


@pytest.mark.parametrize("opening", ["```python", "```jsonc", "```json5", "````json", "``` js on"])
def test_rule2_other_info_strings_are_rejected(opening):
    error = rejected(f"{opening}\n{SIMPLE}\n```")
    assert "fence" in str(error) or "info string" in str(error)


def test_rule2_fences_inside_descriptions_are_kept_byte_for_byte():
    description = "Run:\n```bash\npytest -q\n```\nthen ```json {\"x\": 1}``` and ~~~ too\n```"
    body = reply(step("a", description), step("b", "  ```\n"))
    for text in (body, f"```json\n{body}\n```", f"```\n{body}\n```"):
        plan = parse_plan(text)
        assert plan.tasks[0].description == description
        assert plan.tasks[1].description == "  ```\n"


def test_rule2_tilde_fence_is_rejected():
    assert "~~~" in str(rejected(f"~~~json\n{SIMPLE}\n~~~"))


@pytest.mark.parametrize(
    "text",
    [
        f"Here is the plan:\n```json\n{SIMPLE}\n```",
        f"```json\n{SIMPLE}\n```\nLet me know if you want changes.",
        f"Plan: {SIMPLE}",
        f"{SIMPLE}\nThat is all.",
    ],
)
def test_rule2_prose_before_or_after_is_rejected(text):
    rejected(text)


@pytest.mark.parametrize(
    "text",
    [
        f"```json\n{SIMPLE}",
        f"```json\n{SIMPLE}\n``",
        f"```json {SIMPLE}```",  # no newline: not a fenced block
        "```json",
        "```\n```",
    ],
)
def test_rule2_unclosed_or_malformed_fence_is_rejected(text):
    rejected(text)


def test_rule2_two_fences_are_rejected():
    rejected(f"```json\n{SIMPLE}\n```\n```json\n{SIMPLE}\n```")


def test_rule2_exactly_one_fence_is_removed():
    rejected(f"```\n```json\n{SIMPLE}\n```\n```")


# --- rule 3: exactly one JSON object ----------------------------------------


def test_rule3_duplicate_key_at_the_root():
    text = '{"steps": [{"id": "a", "description": "x"}], "steps": [{"id": "b", "description": "y"}]}'
    assert 'duplicate key "steps"' in str(rejected(text))


def test_rule3_duplicate_key_inside_a_step_names_the_step():
    text = '{"steps": [{"id": "a", "description": "x"}, {"id": "b", "description": "y", "description": "z"}]}'
    error = rejected(text)
    assert error.step_index == 1
    assert str(error) == 'task 2: duplicate key "description"'


def test_rule3_duplicate_key_deep_inside_an_ignored_field():
    text = '{"steps": [{"id": "a", "description": "x", "meta": {"k": [{"z": 1, "z": 2}]}}]}'
    error = rejected(text)
    assert error.step_index == 0 and error.field == "meta.k[0]"
    assert 'duplicate key "z"' in str(error)


@pytest.mark.parametrize(
    "text",
    [
        '{"steps": [{"\\u0069d": "a", "id": "b", "description": "x"}]}',
        '{"steps": [{"id": "a", "\\u0069\\u0064": "b", "description": "x"}]}',
        '{"st\\u0065ps": [], "steps": [{"id": "a", "description": "x"}]}',
    ],
)
def test_rule3_duplicate_keys_are_found_after_unicode_unescaping(text):
    assert "duplicate key" in str(rejected(text))


def test_rule3_escaped_key_without_a_twin_is_fine():
    plan = parse_plan('{"steps": [{"\\u0069d": "a", "description": "x"}]}')
    assert plan.tasks[0].original_id == "a"


@pytest.mark.parametrize("tail", [" extra", "{}", "}", "]", ' {"steps": []}', "\n```"])
def test_rule3_anything_after_the_closing_brace_is_rejected(tail):
    error = rejected(SIMPLE + tail)
    assert "after the JSON object" in str(error) or "fence" in str(error)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_rule3_nan_and_infinity_are_rejected_even_in_ignored_fields(constant):
    error = rejected('{"steps": [{"id": "a", "description": "x", "weight": %s}]}' % constant)
    assert constant in str(error)


@pytest.mark.parametrize(
    "text",
    [
        '// plan\n{"steps": [{"id": "a", "description": "x"}]}',
        '{"steps": [{"id": "a", /* first */ "description": "x"}]}',
        '{"steps": [{"id": "a", "description": "x"}]} // done',
        '{"steps": [{"id": "a", "description": "x"} # note\n]}',
    ],
)
def test_rule3_comments_are_rejected(text):
    rejected(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"steps": [{"id": "a", "description": "x"},]}',
        '{"steps": [{"id": "a", "description": "x",}]}',
        '{"steps": [{"id": "a", "description": "x"}],}',
    ],
)
def test_rule3_trailing_commas_are_rejected(text):
    assert "invalid JSON" in str(rejected(text))


@pytest.mark.parametrize(
    "text, expected",
    [
        ('[{"id": "a", "description": "x"}]', "array"),
        ('"steps"', "not a JSON object"),
        ("42", "not a JSON object"),
        ("null", "not a JSON object"),
        ("true", "not a JSON object"),
        ("{'steps': []}", "invalid JSON"),
    ],
)
def test_rule3_root_must_be_an_object(text, expected):
    assert expected in str(rejected(text))


def test_strict_reader_is_reusable_with_its_own_label():
    assert read_json_object('```json\n{"approved": true}\n```', "verdict") == {"approved": True}
    with pytest.raises(StrictJsonError, match=r"^verdict: .*duplicate key \"approved\""):
        read_json_object('{"approved": true, "approved": false}', "verdict")
    with pytest.raises(StrictJsonError, match=r"^verdict is empty"):
        read_json_object("   ", "verdict")


def test_strict_reader_reports_a_number_too_long_for_python_as_json_error():
    with pytest.raises(StrictJsonError, match="invalid JSON"):
        read_json_object('{"n": ' + "9" * 5000 + "}")


# --- rule 4: steps, then tasks ---------------------------------------------


def test_rule4_steps_win_over_tasks_even_when_tasks_are_malformed():
    text = json.dumps({"steps": [step("s")], "tasks": [1, {"id": 2}]})
    assert [t.original_id for t in parse_plan(text).tasks] == ["s"]


@pytest.mark.parametrize("steps_value", [[], "not a list", None, {"id": "x"}])
def test_rule4_tasks_used_when_steps_is_not_a_non_empty_array(steps_value):
    text = json.dumps({"steps": steps_value, "tasks": [step("t1"), step("t2")]})
    assert [t.original_id for t in parse_plan(text).tasks] == ["t1", "t2"]


@pytest.mark.parametrize(
    "data, detail",
    [
        ({}, '"steps" is missing and "tasks" is missing'),
        ({"steps": [], "tasks": []}, '"steps" is an empty array and "tasks" is an empty array'),
        ({"tasks": {"id": "a"}}, '"tasks" is an object, not an array'),
        ({"plan": [step("a")]}, '"steps" is missing'),
    ],
)
def test_rule4_no_non_empty_array_is_rejected(data, detail):
    error = rejected(json.dumps(data))
    assert detail in str(error) and str(error).startswith("no tasks")
    assert error.step_index is None


@pytest.mark.parametrize("entry, got", [(1, "a number"), ("a", "a string"), (None, "null"), ([step("a")], "an array")])
def test_rule4_every_entry_must_be_an_object(entry, got):
    error = rejected(reply(step("a"), entry))
    assert str(error) == f"task 2: must be an object, got {got}"
    assert error.step_index == 1


# --- rule 5: ids --------------------------------------------------------------


@pytest.mark.parametrize("blank", ["", " ", "\t\n"])
def test_rule5_blank_id_is_rejected(blank):
    error = rejected(reply(step("a"), step(blank)))
    assert error.step_index == 1 and error.field == "id" and "blank" in str(error)


@pytest.mark.parametrize("value, got", [(1, "a number"), (None, "null"), (["a"], "an array"), (True, "a boolean")])
def test_rule5_id_must_be_a_string(value, got):
    error = rejected(reply(step("a"), step(value)))
    assert str(error) == f"task 2: id: must be a string, got {got}"


def test_rule5_missing_id_is_rejected():
    error = rejected(reply({"description": "no id"}))
    assert error.field == "id" and "missing" in str(error)


def test_rule5_ids_are_compared_exactly_without_trimming_or_case_folding():
    plan = parse_plan(reply(step("a"), step("a "), step("A"), step("c", dependencies=["a "])))
    assert [t.original_id for t in plan.tasks] == ["a", "a ", "A", "c"]
    assert plan.tasks[3].dependencies == ["task_2"]


def test_rule5_repeated_id_is_rejected_naming_both_steps():
    error = rejected(reply(step("fetch"), step("other"), step("fetch")))
    assert str(error) == 'task 3 (id "fetch"): id: repeated: task 1 already has id "fetch"'


# --- rule 6: description, type, extra fields --------------------------------


@pytest.mark.parametrize("blank", ["", "   ", "\n\t"])
def test_rule6_blank_description_is_rejected(blank):
    error = rejected(reply(step("a"), step("b", blank)))
    assert str(error) == 'task 2 (id "b"): description: is blank'


def test_rule6_missing_or_non_string_description_is_rejected():
    assert rejected(reply({"id": "a"})).field == "description"
    error = rejected(reply(step("a", 7)))
    assert str(error) == 'task 1 (id "a"): description: must be a string, got a number'


@pytest.mark.parametrize("member", list(TaskType))
@pytest.mark.parametrize("spell", [str.upper, str.lower, str.title])
def test_rule6_type_is_case_insensitive(member, spell):
    task = parse_plan(reply(step("a", type=spell(member.value)))).tasks[0]
    assert task.type is member and task.type_warning == ""


def test_rule6_missing_type_means_analysis_without_warning():
    task = parse_plan(reply(step("a"))).tasks[0]
    assert task.type is TaskType.ANALYSIS and task.type_warning == ""


@pytest.mark.parametrize("raw", ["FILE-READ", "shell", "", " COMMAND", "fıle_read", "ſtep"])
def test_rule6_unknown_type_is_analysis_with_a_warning(raw):
    task = parse_plan(reply(step("a", type=raw))).tasks[0]
    assert task.type is TaskType.ANALYSIS
    assert json.dumps(raw, ensure_ascii=False) in task.type_warning


@pytest.mark.parametrize("value, got", [(3, "a number"), (None, "null"), (["COMMAND"], "an array")])
def test_rule6_non_string_type_is_rejected(value, got):
    error = rejected(reply(step("a", type=value)))
    assert str(error) == f'task 1 (id "a"): type: must be a string, got {got}'


def test_rule6_unknown_extra_fields_are_ignored():
    plan = parse_plan(reply(step("a", priority=5, notes={"x": [1, None]}, tool="bash"), extra={"y": 1}))
    assert plan.tasks[0].to_dict() == {"id": "task_1", "description": "do the thing", "type": "ANALYSIS", "dependencies": []}


def test_summary_is_kept():
    assert parse_plan(reply(step("a"), summary="Two steps")).summary == "Two steps"


# --- rule 7: dependencies ----------------------------------------------------


def test_rule7_missing_or_empty_dependencies_mean_none():
    plan = parse_plan(reply(step("a"), step("b", dependencies=[])))
    assert [t.dependencies for t in plan.tasks] == [[], []]


def test_rule7_null_dependencies_is_rejected():
    error = rejected(reply(step("a", dependencies=None)))
    assert error.field == "dependencies" and "null is not allowed" in str(error)


@pytest.mark.parametrize("value, got", [("a", "a string"), ({"a": 1}, "an object"), (1, "a number")])
def test_rule7_dependencies_must_be_an_array(value, got):
    error = rejected(reply(step("a"), step("b", dependencies=value)))
    assert str(error) == f'task 2 (id "b"): dependencies: must be an array of ids, got {got}'


@pytest.mark.parametrize("value, got", [(1, "a number"), (None, "null"), (["a"], "an array")])
def test_rule7_each_dependency_must_be_a_string(value, got):
    error = rejected(reply(step("a"), step("b", dependencies=["a", value])))
    assert str(error) == f'task 2 (id "b"): dependencies[1]: must be a string, got {got}'
    assert (error.step_index, error.step_id, error.field) == (1, "b", "dependencies[1]")


def test_rule7_unknown_id_is_rejected_and_named():
    error = rejected(reply(step("a"), step("b"), step("fetch", dependencies=["a", "zzz"])))
    assert str(error) == 'task 3 (id "fetch"): dependencies[1]: unknown id "zzz"'


def test_rule7_forward_references_are_fine():
    plan = parse_plan(reply(step("b", dependencies=["a"]), step("a")))
    assert plan.tasks[0].dependencies == ["task_2"]
    assert plan.topological_order() == ["task_2", "task_1"]


def test_rule7_repeated_entries_collapse_keeping_the_first():
    plan = parse_plan(reply(step("a"), step("b"), step("c", dependencies=["b", "a", "b", "a"])))
    assert plan.tasks[2].dependencies == ["task_2", "task_1"]


@pytest.mark.parametrize(
    "written, hint",
    [
        ("Fetch", 'did you mean "fetch"'),
        ("fetch ", 'did you mean "fetch"'),
        (" FETCH", 'did you mean "fetch"'),
        ("fetchh", 'did you mean "fetch"'),
        ("task_1", 'task 1 has id "fetch"'),
        ("step_1", 'task 1 has id "fetch"'),
    ],
)
def test_rule7_near_misses_are_never_guessed_only_hinted(written, hint):
    error = rejected(reply(step("fetch"), step("b", dependencies=[written])))
    assert str(error).startswith(f'task 2 (id "b"): dependencies[0]: unknown id {json.dumps(written)}')
    assert hint in str(error)


def test_rule7_an_id_that_looks_renumbered_but_is_declared_is_exact():
    # The planner used "task_1" as the id of its second step.
    plan = parse_plan(reply(step("x", dependencies=["task_1"]), step("task_1")))
    assert plan.tasks[0].dependencies == ["task_2"]


# --- rule 8: renumbering -----------------------------------------------------


@pytest.mark.parametrize("prefix", ["task", "step"])
def test_rule8_ids_renumbered_in_array_order_with_dependencies_rewritten(prefix):
    plan = parse_plan(reply(step("load"), step("parse", dependencies=["load"]), step("report", dependencies=["parse", "load"])), prefix)
    assert plan.ids == [f"{prefix}_1", f"{prefix}_2", f"{prefix}_3"]
    assert [t.original_id for t in plan.tasks] == ["load", "parse", "report"]
    assert plan.tasks[2].dependencies == [f"{prefix}_2", f"{prefix}_1"]


def test_rule8_renumbering_does_not_confuse_ids_that_already_look_numbered():
    plan = parse_plan(reply(step("task_2"), step("task_1", dependencies=["task_2"])))
    assert plan.tasks[1].dependencies == ["task_1"]
    assert [t.original_id for t in plan.tasks] == ["task_2", "task_1"]


# --- rule 9: cycles ------------------------------------------------------------


def test_rule9_self_dependency_is_a_cycle():
    error = rejected(reply(step("a"), step("b", dependencies=["a", "b"])))
    assert str(error) == 'task 2 (id "b"): dependencies[1]: depends on itself ("b" → "b")'


def test_rule9_two_cycle_names_both_ids():
    error = rejected(reply(step("a", dependencies=["b"]), step("b", dependencies=["a"])))
    assert str(error) == 'task 1 (id "a"): dependencies[0]: dependency cycle "a" → "b" → "a"'


def test_rule9_cycle_names_the_ids_in_order():
    error = rejected(reply(step("x"), step("c", dependencies=["b"]), step("a", dependencies=["c"]), step("b", dependencies=["x", "a"])))
    assert 'dependency cycle "c" → "b" → "a" → "c"' in str(error)
    assert error.step_id == "c"


def chain(count: int, name=lambda i: f"s{i}") -> list[dict]:
    return [step(name(i), dependencies=[name(i - 1)] if i > 1 else []) for i in range(1, count + 1)]


def test_rule9_cycle_deep_in_a_200_task_plan_is_named():
    steps = chain(200)
    steps[149]["dependencies"].append("s180")  # s150 needs s180, which needs s150 through the chain
    error = rejected(reply(*steps))
    expected = " → ".join(json.dumps(f"s{i}") for i in [150] + list(range(180, 149, -1)))
    assert str(error) == f'task 150 (id "s150"): dependencies[1]: dependency cycle {expected}'


def test_rule9_cycle_in_a_very_long_chain_does_not_hit_the_recursion_limit():
    steps = chain(5000)
    steps[0]["dependencies"] = ["s5000"]
    error = rejected(reply(*steps))
    assert error.step_index == 0 and "dependency cycle" in str(error)


def test_rule9_dependency_on_a_cycle_is_not_itself_reported():
    problems = validate_plan_dict({"tasks": [step("a", dependencies=["b"]), step("b", dependencies=["a"]), step("c", dependencies=["a"])]})
    assert [p.step_id for p in problems] == ["a"]


# --- whole plans -----------------------------------------------------------------


def test_200_task_plan_with_forward_and_backward_references():
    steps = [step(f"t{i}", f"task {i}") for i in range(200)]
    for i in range(200):
        # each task needs the one 7 places later in the array (a forward
        # reference) when that exists, and every tenth needs its predecessor
        deps = [f"t{i + 7}"] if i + 7 < 200 else []
        if i % 10 == 0 and i:
            deps.append(f"t{i - 1}")
        steps[i]["dependencies"] = deps
    reply_text = f"```json\n{reply(*steps)}\n```"
    plan = parse_plan(reply_text)
    assert len(plan.tasks) == 200
    order = plan.topological_order()
    seen = set()
    for task_id in order:
        assert all(dep in seen for dep in plan.task(task_id).dependencies)
        seen.add(task_id)
    assert sorted(order) == sorted(plan.ids)
    assert sum(len(r) for r in plan.batches()) == 200


def test_validate_plan_dict_reports_every_problem_in_document_order():
    data = {"tasks": [step("a", "  "), 5, step("c", dependencies=["a", "nope", None], type=2), step("a")]}
    messages = [str(p) for p in validate_plan_dict(data)]
    assert messages == [
        'task 1 (id "a"): description: is blank',
        "task 2: must be an object, got a number",
        'task 3 (id "c"): type: must be a string, got a number',
        'task 3 (id "c"): dependencies[1]: unknown id "nope"',
        'task 3 (id "c"): dependencies[2]: must be a string, got null',
        'task 4 (id "a"): id: repeated: task 1 already has id "a"',
    ]
    assert validate_plan_dict({"tasks": [step("a")]}) == []


def test_plan_from_dict_raises_the_first_problem_and_accepts_valid_dicts():
    with pytest.raises(PlanError, match="unknown id"):
        plan_from_dict({"tasks": [step("a", dependencies=["b"])]})
    plan = plan_from_dict({"summary": "s", "tasks": [step("a"), step("b", dependencies=["a"])]}, "step")
    assert isinstance(plan, Plan) and plan.ids == ["step_1", "step_2"] and plan.summary == "s"


def test_plan_from_dict_on_a_non_object():
    with pytest.raises(PlanError, match="must be a JSON object, got an array"):
        plan_from_dict([step("a")])  # type: ignore[arg-type]


def test_messages_use_the_mode_noun_task_in_plan_and_step_in_team():
    text = reply(step("a"), step("a"), step("c", dependencies=["step_1"]))
    assert str(rejected(text, "task")) == 'task 2 (id "a"): id: repeated: task 1 already has id "a"'
    assert str(rejected(text, "step")) == 'step 2 (id "a"): id: repeated: step 1 already has id "a"'
    hint = rejected(reply(step("fetch"), step("b", dependencies=["step_1"])), "step")
    assert str(hint).startswith('step 2 (id "b"): dependencies[0]: unknown id "step_1"')
    assert 'step 1 has id "fetch"' in str(hint) and "task" not in str(hint)
    duplicate = '{"steps": [{"id": "a", "description": "x", "description": "y"}]}'
    assert str(rejected(duplicate, "step")) == 'step 1: duplicate key "description"'
    assert str(rejected(duplicate, "task")) == 'task 1: duplicate key "description"'


def test_plan_error_is_a_value_error_with_location_fields():
    error = rejected(reply(step("a\nb"), step("c", dependencies=["x"])))
    assert isinstance(error, ValueError)
    assert (error.step_index, error.step_position, error.step_id, error.field) == (1, 2, "c", "dependencies[0]")
    error = rejected(reply(step("line\nbreak", " ")))
    assert str(error) == 'task 1 (id "line\\nbreak"): description: is blank'
