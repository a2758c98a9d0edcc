"""`verify` on real ledgers (recorded in-process through the real engine)
and on hand-tampered copies: one tamper per rule, each reported with the
right rule and ledger line."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from paicli_tui.records.verify import render, verify_ledger
from tests.support.recorder import lines_of, plan_with_replan, team_failure, team_with_retry, write_lines

pytestmark = pytest.mark.timeout(30)


def _index(lines, event, start=0, **match):
    for i in range(start, len(lines)):
        line = lines[i]
        if line["event"] == event and all(line["payload"].get(k) == v for k, v in match.items()):
            return i
    raise AssertionError(f"no {event} {match} in the ledger")


def _found(path) -> set[tuple[int, str]]:
    return {(v.line, v.rule) for v in verify_ledger(path).violations}


def _tampered(tmp_path, lines, *, renumber: bool = True) -> object:
    """A tampered copy. By default ``seq`` is renumbered, as a careful
    tamperer would, so only the rule under test can catch the edit."""
    if renumber:
        lines = [{**line, "seq": n} for n, line in enumerate(lines, start=1)]
    return write_lines(tmp_path / "tampered.jsonl", lines)


@pytest.mark.parametrize("recorder", [team_with_retry, team_failure, plan_with_replan])
def test_real_runs_verify_clean(tmp_path, recorder):
    result = verify_ledger(recorder(tmp_path))
    assert result.ok, render(result)
    assert result.runs == 1 and not result.warnings


def test_dispatch_between_replan_trigger_and_new_plan(tmp_path):
    lines = lines_of(plan_with_replan(tmp_path))
    trigger = _index(lines, "replan_triggered")
    new_plan = _index(lines, "plan_version", origin="replan")
    moved = lines.pop(_index(lines, "dispatch", new_plan))
    lines.insert(trigger + 1, moved)
    assert _found(_tampered(tmp_path, lines)) == {(trigger + 2, "replan-freeze")}


def test_dispatch_before_a_dependency_completed(tmp_path):
    lines = lines_of(team_with_retry(tmp_path))
    # Record step_1 as depending on step_3: step_1 then started too early.
    for i in (_index(lines, "plan_version"), _index(lines, "run_started")):
        lines[i]["payload"]["plan"]["tasks"][0]["dependencies"] = ["step_3"]
    at = _index(lines, "dispatch", task_id="step_1", attempt=1)
    assert _found(_tampered(tmp_path, lines)) == {(at + 1, "dependencies")}


def test_more_running_than_the_recorded_limit(tmp_path):
    lines = lines_of(team_with_retry(tmp_path))
    lines[_index(lines, "run_started")]["payload"]["parallelism"] = 1
    second = _index(lines, "dispatch", task_id="step_3")
    found = _found(_tampered(tmp_path, lines))
    # step_1's retry may also start while step_3 still runs, depending on
    # which finished first: that dispatch breaks the limit too.
    assert (second + 1, "parallelism") in found
    assert {rule for _, rule in found} == {"parallelism"}


def test_a_reviewer_offered_tools(tmp_path):
    lines = lines_of(team_with_retry(tmp_path))
    at = next(i for i, line in enumerate(lines) if line["event"] == "model_request" and line["actor"].startswith("reviewer"))
    lines[at]["payload"]["tools"] = ["read_file", "write_file"]
    assert _found(_tampered(tmp_path, lines)) == {(at + 1, "tool-less-roles")}


def test_the_planner_offered_tools(tmp_path):
    lines = lines_of(plan_with_replan(tmp_path))
    at = next(i for i, line in enumerate(lines) if line["event"] == "model_request" and line["actor"] == "planner")
    lines[at]["payload"]["tools"] = ["execute_command"]
    assert _found(_tampered(tmp_path, lines)) == {(at + 1, "tool-less-roles")}


def test_one_worker_on_two_steps(tmp_path):
    lines = lines_of(team_with_retry(tmp_path))
    at = _index(lines, "dispatch", task_id="step_3")
    lines[at]["payload"]["worker"] = "worker-1"  # still on step_1
    assert (at + 1, "worker-exclusive") in _found(_tampered(tmp_path, lines))


def test_completed_step_without_an_approval_of_its_last_attempt(tmp_path):
    lines = lines_of(team_with_retry(tmp_path))
    verdict = _index(lines, "review_verdict", step_id="step_1", attempt=2)
    lines[verdict]["payload"]["approved"] = False
    completed = _index(lines, "status", task_id="step_1", status="COMPLETED")
    assert _found(_tampered(tmp_path, lines)) == {(completed + 1, "review-approval")}


def test_approval_of_an_earlier_attempt_does_not_count(tmp_path):
    lines = lines_of(team_with_retry(tmp_path))
    first = _index(lines, "review_verdict", step_id="step_1", attempt=1)
    last = _index(lines, "review_verdict", step_id="step_1", attempt=2)
    lines[first]["payload"]["approved"], lines[last]["payload"]["approved"] = True, False
    completed = _index(lines, "status", task_id="step_1", status="COMPLETED")
    assert (completed + 1, "review-approval") in _found(_tampered(tmp_path, lines))


def test_a_step_downstream_of_a_failed_one_ran(tmp_path):
    lines = lines_of(team_failure(tmp_path))
    skipped = _index(lines, "status", task_id="step_2", status="SKIPPED")
    dispatch = copy.deepcopy(lines[_index(lines, "dispatch", task_id="step_3")])
    dispatch["payload"]["task_id"] = dispatch["actor"] = "step_2"
    lines.insert(skipped, dispatch)
    assert _found(_tampered(tmp_path, lines)) == {(skipped + 1, "downstream-of-failure")}


def test_a_third_retry(tmp_path):
    lines = lines_of(team_failure(tmp_path))
    third = _index(lines, "dispatch", task_id="step_1", attempt=3)
    extra = copy.deepcopy(lines[third])
    extra["payload"]["attempt"] = 4
    lines.insert(third + 1, extra)
    assert _found(_tampered(tmp_path, lines)) == {(third + 2, "retry-limit")}


def test_a_third_replan(tmp_path):
    lines = lines_of(plan_with_replan(tmp_path))
    trigger = _index(lines, "replan_triggered")
    lines[trigger + 1 : trigger + 1] = [copy.deepcopy(lines[trigger]), copy.deepcopy(lines[trigger])]
    assert _found(_tampered(tmp_path, lines)) == {(trigger + 3, "replan-limit")}


def test_a_system_prompt_that_changed(tmp_path):
    lines = lines_of(team_with_retry(tmp_path))
    requests = [i for i, line in enumerate(lines) if line["event"] == "model_request" and line["actor"] == "worker-1"]
    lines[requests[1]]["payload"]["system_sha256"] = "0" * 64
    assert _found(_tampered(tmp_path, lines)) == {(requests[1] + 1, "system-prompt")}


def test_replanned_task_ids_may_have_other_prompts(tmp_path):
    """After a replan, task_1 is a new agent: a different prompt is fine."""
    lines = lines_of(plan_with_replan(tmp_path))
    new_plan = _index(lines, "plan_version", origin="replan")
    later = next(i for i in range(new_plan, len(lines)) if lines[i]["event"] == "model_request" and lines[i]["actor"] == "task_1")
    lines[later]["payload"]["system_sha256"] = "f" * 64
    assert _found(_tampered(tmp_path, lines)) == set()


def test_a_torn_last_line_is_a_warning_and_the_rest_still_verifies(tmp_path):
    path = team_with_retry(tmp_path)
    total = len(lines_of(path))
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"v": 1, "session": "x", "seq": 99, "event": "dispa')
    result = verify_ledger(path)
    assert result.ok and result.lines == total
    assert len(result.warnings) == 1 and f":{total + 1}: unreadable line skipped" in result.warnings[0]
    assert any(line.startswith("warning:") for line in render(result))


def test_a_deleted_line_is_caught_by_its_sequence(tmp_path):
    lines = lines_of(team_with_retry(tmp_path))
    at = _index(lines, "model_request")
    del lines[at]
    assert _found(_tampered(tmp_path, lines, renumber=False)) == {(at + 1, "sequence")}


def test_a_duplicated_line_is_caught_by_its_sequence(tmp_path):
    lines = lines_of(team_with_retry(tmp_path))
    at = _index(lines, "model_request")
    lines.insert(at + 1, copy.deepcopy(lines[at]))
    assert _found(_tampered(tmp_path, lines, renumber=False)) == {(at + 2, "sequence")}


@pytest.mark.parametrize(("field", "value", "words"), [
    ("prompt_tokens", "many", "field 'prompt_tokens' is not a whole number"),
    ("prompt_tokens", None, "field 'prompt_tokens' is not a whole number"),
    ("tool_calls", {"a": 1}, "field 'tool_calls' is not a list"),
])
def test_a_type_corrupted_line_is_a_violation_naming_the_field(tmp_path, field, value, words):
    lines = lines_of(team_with_retry(tmp_path))
    at = _index(lines, "model_response")
    lines[at]["payload"][field] = value
    result = verify_ledger(_tampered(tmp_path, lines))
    (violation,) = [v for v in result.violations if v.rule == "well-formed"]
    assert violation.line == at + 1 and words in violation.message and not result.ok


def test_an_empty_ledger_is_not_ok(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("", encoding="utf-8")
    result = verify_ledger(path)
    assert not result.ok and "    line 0: empty ledger: nothing to verify" in render(result)


def test_render_lists_every_check_once_with_its_mark():
    from paicli_tui.records.verify import Verification, checklist
    from paicli_tui.records.rules import Violation

    result = Verification(Path("x.jsonl"), lines=3, runs=1,
                          violations=[Violation(2, "dependencies", "task_2 ran early"), Violation(3, "dependencies", "again")])
    out = render(result)
    names = [name for name, _ in checklist()]
    marks = {line.split()[1]: line.split()[0] for line in out[1:-1] if line[:1] in "✓✗"}
    assert list(marks) == names
    assert [name for name, mark in marks.items() if mark == "✗"] == ["dependencies"]
    at = out.index(next(line for line in out if line.startswith("✗")))
    assert out[at + 1:at + 3] == ["    line 2: task_2 ran early", "    line 3: again"]
    assert out[-1] == f"1 of {len(names)} rules broken: 2 violations"
