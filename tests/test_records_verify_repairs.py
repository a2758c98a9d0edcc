"""`verify`'s repair-after-rejection rule (issue 16) on real ledgers with
repairs (the real Session, planner and team behind ScriptedTransport) and on
tampered copies of them."""

from __future__ import annotations

import copy

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.records.verify import render, verify_ledger
from tests.support.recorder import approve, done, lines_of, record, team_plan, write_lines

pytestmark = pytest.mark.timeout(30)


def repaired_team(tmp_path):
    """A plan repaired once, then step_1's report repaired once and its
    unreadable verdict repaired once."""
    script = Script({
        "planner": [Reply(content="Here is the plan!"), team_plan(("A", []))],
        "worker": [Reply(content="I did it"), done("r")],
        "reviewer": [Reply(content="fine by me"), approve()],
    })
    return record(tmp_path, "team", "A", script, workers=1)


def _tampered(tmp_path, lines):
    lines = [{**line, "seq": n} for n, line in enumerate(lines, start=1)]
    return write_lines(tmp_path / "tampered.jsonl", lines)


def _found(path):
    return {(v.line, v.rule) for v in verify_ledger(path).violations}


def _at(lines, event, **match):
    return next(i for i, line in enumerate(lines)
                if line["event"] == event and all(line["payload"].get(k) == v for k, v in match.items()))


def test_a_real_ledger_with_three_repairs_verifies_clean(tmp_path):
    lines = lines_of(repaired_team(tmp_path))
    assert [line["payload"]["kind"] for line in lines if line["event"] == "repair_requested"] == ["plan", "report", "verdict"]
    result = verify_ledger(write_lines(tmp_path / "copy.jsonl", lines))
    assert result.ok, render(result)


@pytest.mark.parametrize("kind, rejection", [
    ("plan", "plan_rejected"), ("report", "worker_report"), ("verdict", "review_verdict"),
])
def test_a_repair_without_its_rejection_is_a_violation(tmp_path, kind, rejection):
    lines = lines_of(repaired_team(tmp_path))
    repair = _at(lines, "repair_requested", kind=kind)
    rejected = max(i for i in range(repair) if lines[i]["event"] == rejection)
    del lines[rejected]
    assert (repair, "repair-after-rejection") in _found(_tampered(tmp_path, lines))  # line numbers are 1-based


def test_a_second_repair_for_one_rejection_is_a_violation(tmp_path):
    lines = lines_of(repaired_team(tmp_path))
    repair = _at(lines, "repair_requested", kind="report")
    lines.insert(repair + 1, copy.deepcopy(lines[repair]))
    assert _found(_tampered(tmp_path, lines)) == {(repair + 2, "repair-after-rejection")}


def test_a_repair_asked_of_another_agent_or_step_is_a_violation(tmp_path):
    lines = lines_of(repaired_team(tmp_path))
    repair = _at(lines, "repair_requested", kind="verdict")
    lines[repair]["payload"]["step_id"] = "step_9"
    assert _found(_tampered(tmp_path, lines)) == {(repair + 1, "repair-after-rejection")}
    lines[repair]["payload"]["step_id"] = "step_1"
    lines[repair]["actor"] = "reviewer-step_1"
    assert _found(_tampered(tmp_path, lines)) == {(repair + 1, "repair-after-rejection")}


def test_a_readable_rejection_does_not_license_a_verdict_repair(tmp_path):
    lines = lines_of(repaired_team(tmp_path))
    repair = _at(lines, "repair_requested", kind="verdict")
    verdict = max(i for i in range(repair) if lines[i]["event"] == "review_verdict")
    lines[verdict]["payload"]["feedback"] = "- the file is missing"
    assert _found(_tampered(tmp_path, lines)) == {(repair + 1, "repair-after-rejection")}
