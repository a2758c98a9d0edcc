"""A task's ``check`` command in a plan: the schemas, the strict parser,
plan files and `paicli plan check` (a real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from jsonschema import Draft202012Validator

from paicli_tui.plan.edits import set_check
from paicli_tui.plan.files import PlanFileError, load_plan_file, write_plan_file
from paicli_tui.plan.ordered_schema import ORDERED_PLAN_SCHEMA
from paicli_tui.plan.parser import PlanError, parse_plan, validate_plan_dict
from paicli_tui.plan.schema import PLAN_REPLY_SCHEMA, PLAN_VALIDATOR


def test_the_parser_keeps_a_tasks_check_and_treats_blank_as_none():
    plan = parse_plan(json.dumps({"tasks": [
        {"id": "a", "description": "write calc", "type": "FILE_WRITE", "check": "  python -m pytest tests/test_calc.py -q "},
        {"id": "b", "description": "read", "check": "  "},
        {"id": "c", "description": "think"},
    ]}))
    assert [task.check for task in plan.tasks] == ["python -m pytest tests/test_calc.py -q", "", ""]
    assert plan.tasks[0].to_dict()["check"] == "python -m pytest tests/test_calc.py -q"
    assert "check" not in plan.tasks[1].to_dict()


@pytest.mark.parametrize("value, detail", [
    (3, "task 1 (id \"a\"): check: must be a string, got a number"),
    (None, "task 1 (id \"a\"): check: null is not allowed (leave the field out for no check)"),
    ("pytest\nrm -rf x", "task 1 (id \"a\"): check: must be one command line (no newline or NUL)"),
])
def test_a_bad_check_names_the_task_and_field(value, detail):
    with pytest.raises(PlanError) as caught:
        parse_plan(json.dumps({"tasks": [{"id": "a", "description": "d", "check": value}]}))
    assert str(caught.value) == detail


def test_both_reply_schemas_allow_a_check_and_plans_without_one_still_pass():
    step = {"id": "t1", "description": "write it", "type": "FILE_WRITE", "dependencies": [], "check": "test -f x"}
    strict = {"summary": "s", "steps": [step]}
    assert Draft202012Validator(PLAN_REPLY_SCHEMA).is_valid(strict) and PLAN_VALIDATOR.is_valid(strict)
    ordered = Draft202012Validator(ORDERED_PLAN_SCHEMA)
    assert ordered.is_valid(strict)
    without = {k: v for k, v in step.items() if k != "check"}
    assert ordered.is_valid({"summary": "s", "steps": [without]})
    assert not ordered.is_valid({"summary": "s", "steps": [{**step, "check": "two\nlines"}]})


def test_a_hand_edited_check_in_a_plan_file_loads_and_a_blank_edit_removes_it(tmp_path):
    entries = [{"id": "t1", "description": "make notes.md", "type": "FILE_WRITE", "dependencies": []}]
    path = write_plan_file(tmp_path, "task", "notes", entries)
    data = json.loads(path.read_text())
    data["tasks"][0]["check"] = "test -f notes.md"  # the person's hand edit
    path.write_text(json.dumps(data))
    assert load_plan_file(path).tasks[0].check == "test -f notes.md"
    assert "check" not in set_check(data, "t1", " ")["tasks"][0]
    data["tasks"][0]["check"] = ["test", "-f"]
    path.write_text(json.dumps(data))
    with pytest.raises(PlanFileError, match=r"task 1 \(id \"t1\"\): check: must be a string, got an array"):
        load_plan_file(path)


def test_validation_lists_a_check_problem_with_the_others():
    problems = validate_plan_dict({"tasks": [{"id": "a", "description": "", "check": 1}]})
    assert [str(p) for p in problems] == ['task 1 (id "a"): description: is blank',
                                          'task 1 (id "a"): check: must be a string, got a number']


def test_plan_check_prints_each_tasks_check(tmp_path):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"tasks": [
        {"id": "w", "description": "write", "type": "FILE_WRITE", "check": "python -m pytest -q tests/test_w.py"},
        {"id": "r", "description": "read", "dependencies": ["w"]},
    ]}))
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    result = subprocess.run([sys.executable, "-m", "paicli_tui", "plan", "check", str(path)],
                            capture_output=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr
    tasks = json.loads(result.stdout)["tasks"]
    assert tasks[0]["check"] == "python -m pytest -q tests/test_w.py" and "check" not in tasks[1]
    path.write_text(json.dumps({"tasks": [{"id": "w", "description": "write", "check": False}]}))
    result = subprocess.run([sys.executable, "-m", "paicli_tui", "plan", "check", str(path)],
                            capture_output=True, timeout=60, env=env)
    assert result.returncode == 1
    assert 'task 1 (id "w"): check: must be a string, got a boolean' in result.stderr.decode()


def test_the_planner_prompts_ask_for_the_narrowest_check():
    from paicli_tui.config.resources import packaged_dir

    for name in ("planner.md", "team-planner.md"):
        text = (packaged_dir("prompts") / "modes" / name).read_text()
        assert "narrowest test command" in text and '"check": "..."' in text


# What a 135M local model wrote as checks (bench/local_models.py): each one
# failed when run, and the step was retried until it failed for good.
NOT_COMMANDS = ["[", "...", "[]}]} } 3 more, but that's a good end of the plan.", "*", "echo 'unclosed"]
COMMANDS = ["python -m pytest -q tests/test_util.py", 'python -c "import pkg"', "[ -f CHANGELOG.md ]",
            "FOO=1 make test", "./run.sh", "! grep -q greet pkg/app.py", "cd pkg && python -m pytest",
            "$PYTHON -m pytest", "test -f x"]


@pytest.mark.parametrize("check", NOT_COMMANDS)
def test_a_check_that_is_not_a_command_line_is_dropped_with_a_warning(check):
    plan = parse_plan(json.dumps({"steps": [{"id": "s", "description": "write it", "check": check}]}), "step")
    task = plan.tasks[0]
    assert task.check == "" and "check" not in task.to_dict()
    assert task.check_warning.startswith("check dropped: `")


@pytest.mark.parametrize("check", COMMANDS)
def test_a_check_that_reads_as_a_command_line_is_kept_as_written(check):
    task = parse_plan(json.dumps({"tasks": [{"id": "t", "description": "d", "check": check}]})).tasks[0]
    assert (task.check, task.check_warning) == (check, "")


def test_plan_check_and_the_line_review_say_which_check_was_dropped(tmp_path):
    from paicli_tui.plan.review import full_plan

    data = {"tasks": [{"id": "w", "description": "write", "check": "..."}, {"id": "r", "description": "read"}]}
    assert "Warning: task_1: check dropped: `...` does not start with a program" in full_plan(
        parse_plan(json.dumps(data)))
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(data))
    result = subprocess.run([sys.executable, "-m", "paicli_tui", "plan", "check", str(path)], capture_output=True,
                            timeout=60, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert result.returncode == 0, result.stderr
    assert 'warning: task 1 (id "w"): check dropped: `...`' in result.stderr.decode()
    assert "check" not in json.loads(result.stdout)["tasks"][0]
