"""Hand edits on the review screen (P-4.3): pure functions, validated live."""

from __future__ import annotations

import copy

import pytest

from paicli_tui.plan import PlanError, TaskType, parse_plan, plan_from_dict, validate_plan_dict
from paicli_tui.plan import edits

REPLY = """```json
{"summary": "ship it", "steps": [
  {"id": "read", "description": "read the code", "type": "FILE_READ"},
  {"id": "fix", "description": "fix the bug", "type": "file_write", "dependencies": ["read"]},
  {"id": "test", "description": "run tests", "type": "COMMAND", "dependencies": ["fix"]},
  {"id": "notes", "description": "write notes"}
]}
```"""


@pytest.fixture
def plan_dict() -> dict:
    return parse_plan(REPLY).to_dict()


def unchanged(function, plan: dict, *args):
    before = copy.deepcopy(plan)
    result = function(plan, *args)
    assert plan == before, "the input is never mutated"
    assert result is not plan
    return result


def test_plan_dict_round_trips_through_plan_from_dict(plan_dict):
    plan = plan_from_dict(plan_dict)
    assert plan.to_dict() == plan_dict
    assert plan_from_dict(plan.to_dict()) == plan


def test_set_description_and_validation_of_a_blank_one(plan_dict):
    edited = unchanged(edits.set_description, plan_dict, "task_2", "fix the bug in parser.py")
    assert edited["tasks"][1]["description"] == "fix the bug in parser.py"
    assert validate_plan_dict(edited) == []
    blank = edits.set_description(plan_dict, "task_2", "   ")
    [problem] = validate_plan_dict(blank)
    assert (problem.step_index, problem.field) == (1, "description")


def test_set_type_accepts_enum_or_text(plan_dict):
    edited = unchanged(edits.set_type, plan_dict, "task_4", TaskType.VERIFICATION)
    assert edited["tasks"][3]["type"] == "VERIFICATION"
    edited = edits.set_type(edited, "task_4", "command")
    assert plan_from_dict(edited).tasks[3].type is TaskType.COMMAND


def test_add_dependency_is_idempotent_and_unknown_ids_are_reported(plan_dict):
    edited = unchanged(edits.add_dependency, plan_dict, "task_4", "task_1")
    assert edited["tasks"][3]["dependencies"] == ["task_1"]
    assert edits.add_dependency(edited, "task_4", "task_1") == edited
    wrong = edits.add_dependency(plan_dict, "task_4", "task_9")
    [problem] = validate_plan_dict(wrong)
    assert str(problem) == 'task 4 (id "task_4"): dependencies[0]: unknown id "task_9"'


def test_add_dependency_that_closes_a_cycle_is_named(plan_dict):
    edited = edits.add_dependency(plan_dict, "task_1", "task_3")
    [problem] = validate_plan_dict(edited)
    assert str(problem) == 'task 1 (id "task_1"): dependencies[0]: dependency cycle "task_1" → "task_3" → "task_2" → "task_1"'
    with pytest.raises(PlanError, match="cycle"):
        plan_from_dict(edited)


def test_remove_dependency(plan_dict):
    edited = unchanged(edits.remove_dependency, plan_dict, "task_3", "task_2")
    assert edited["tasks"][2]["dependencies"] == []
    assert edits.remove_dependency(edited, "task_3", "task_2") == edited


def test_add_task_uses_the_next_free_id(plan_dict):
    edited = unchanged(edits.add_task, plan_dict, "task_1", "look at the logs", "file_read")
    assert [t["id"] for t in edited["tasks"]] == ["task_1", "task_5", "task_2", "task_3", "task_4"]
    assert edited["tasks"][1] == {"id": "task_5", "description": "look at the logs", "type": "file_read", "dependencies": []}
    at_end = edits.add_task(edited, None, "summarize")
    assert at_end["tasks"][-1]["id"] == "task_6" and at_end["tasks"][-1]["type"] == "ANALYSIS"
    assert edits.add_task({"tasks": []}, None, "first", prefix="step")["tasks"][0]["id"] == "step_1"
    assert validate_plan_dict(at_end) == []


def test_next_free_id_skips_taken_ids():
    plan = {"tasks": [{"id": "task_3"}, {"id": "task_4"}, {"id": "x"}]}
    assert edits.next_free_id(plan) == "task_5"


def test_delete_task_removes_it_from_dependents(plan_dict):
    edited = unchanged(edits.delete_task, plan_dict, "task_2")
    assert [t["id"] for t in edited["tasks"]] == ["task_1", "task_3", "task_4"]
    assert edited["tasks"][1]["dependencies"] == []
    assert validate_plan_dict(edited) == []


def test_move_task_keeps_dependencies_pointing_to_the_same_tasks(plan_dict):
    edited = unchanged(edits.move_task, plan_dict, "task_1", 2)
    assert [t["id"] for t in edited["tasks"]] == ["task_2", "task_3", "task_1", "task_4"]
    plan = plan_from_dict(edited)
    assert [t.description for t in plan.tasks][:3] == ["fix the bug", "run tests", "read the code"]
    assert plan.tasks[0].dependencies == ["task_3"]  # "fix" still needs "read", now third
    assert [plan.task(t).description for t in plan.topological_order()][:2] == ["read the code", "fix the bug"]
    assert [t["id"] for t in edits.move_task(plan_dict, "task_3", -99)["tasks"]][0] == "task_3"
    assert [t["id"] for t in edits.move_task(plan_dict, "task_3", 99)["tasks"]][-1] == "task_3"


def test_renumber_rewrites_ids_and_dependencies(plan_dict):
    moved = edits.move_task(plan_dict, "task_1", 3)
    renumbered = unchanged(edits.renumber, moved, "step")
    assert [t["id"] for t in renumbered["tasks"]] == ["step_1", "step_2", "step_3", "step_4"]
    by_description = {t["description"]: t for t in renumbered["tasks"]}
    assert by_description["fix the bug"]["dependencies"] == [by_description["read the code"]["id"]]
    assert by_description["run tests"]["dependencies"] == [by_description["fix the bug"]["id"]]
    assert renumbered["summary"] == "ship it"


def test_renumber_refuses_to_turn_an_unknown_id_into_a_real_one():
    plan = {"tasks": [{"id": "a", "description": "x", "dependencies": ["task_2"]}, {"id": "b", "description": "y"}]}
    with pytest.raises(PlanError, match="would name a renumbered task"):
        edits.renumber(plan)
    kept = edits.renumber({"tasks": [{"id": "a", "description": "x", "dependencies": ["zzz"]}]})
    assert kept["tasks"][0]["dependencies"] == ["zzz"]


def test_edits_on_an_unknown_task_raise_key_error(plan_dict):
    with pytest.raises(KeyError):
        edits.set_description(plan_dict, "task_99", "x")
    with pytest.raises(KeyError):
        edits.add_task(plan_dict, "nope", "x")


def test_steps_key_is_edited_in_place_of_tasks():
    team = {"steps": [{"id": "step_1", "description": "a", "type": "ANALYSIS", "dependencies": []}]}
    edited = edits.add_task(team, "step_1", "b", prefix="step")
    assert [s["id"] for s in edited["steps"]] == ["step_1", "step_2"] and "tasks" not in edited


def test_next_free_id_never_reuses_an_id_handed_out_before(plan_dict):
    without_last = edits.delete_task(plan_dict, "task_4")
    assert edits.next_free_id(without_last) == "task_4"  # nothing says task_4 ever existed
    assert edits.next_free_id(without_last, used={"task_4"}) == "task_5"
    added = edits.add_task(without_last, None, "again", used={"task_1", "task_4"})
    assert [t["id"] for t in added["tasks"]] == ["task_1", "task_2", "task_3", "task_5"]
    assert edits.next_free_id({"tasks": [{"id": "step_7"}]}, "step") == "step_8"


def test_renumbering_names_only_the_ids_that_change(plan_dict):
    moved = edits.move_task(edits.add_task(plan_dict, "task_1", "new"), "task_4", -4)
    before = [t["id"] for t in moved["tasks"]]
    assert before == ["task_4", "task_1", "task_5", "task_2", "task_3"]
    after = plan_from_dict(moved).ids
    assert edits.renumbering(before, after) == [
        ("task_4", "task_1"), ("task_1", "task_2"), ("task_5", "task_3"), ("task_2", "task_4"), ("task_3", "task_5"),
    ]
    assert edits.renumbering(["task_1", "task_2"], ["task_1", "task_2"]) == []


def test_plan_from_dict_can_keep_the_written_ids(plan_dict):
    edited = edits.add_task(plan_dict, "task_1", "look at the logs")
    edited = edits.add_dependency(edited, "task_2", "task_5")
    kept = plan_from_dict(edited, renumber=False)
    assert kept.ids == ["task_1", "task_5", "task_2", "task_3", "task_4"]
    assert kept.task("task_2").dependencies == ["task_1", "task_5"]
    run = plan_from_dict(edited)
    assert run.ids == ["task_1", "task_2", "task_3", "task_4", "task_5"]
    assert run.task("task_3").dependencies == ["task_1", "task_2"]  # the same tasks, renumbered
    with pytest.raises(PlanError, match="cycle"):
        plan_from_dict(edits.add_dependency(edited, "task_1", "task_3"), renumber=False)
