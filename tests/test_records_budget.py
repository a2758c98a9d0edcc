"""Budgets (issue 8 item 6): each per-agent limit ends that agent with a
PARTIAL result naming the limit; each per-run limit stops dispatching new
tasks and is named in the report. Real engine, scripted model."""

from __future__ import annotations

import pytest

from paicli_tui.agent.budget import Budget, RunBudget
from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.records.report import session_reports
from tests.support.recorder import lines_of, record, task_plan
from tests.support.timing import current_scale

pytestmark = pytest.mark.timeout(30)

READ = Reply(tool_calls=[("read_file", {"path": "notes.txt"})])


def _events(path, name):
    return [line for line in lines_of(path) if line["event"] == name]


def _react(tmp_path, first: Reply, **limits):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "notes.txt").write_text("alpha\n", encoding="utf-8")
    script = Script({"react": [first, Reply(content="the summary so far")]})
    return record(tmp_path, "react", "read the notes", script, **limits)


@pytest.mark.parametrize(
    ("limits", "first", "words"),
    [
        ({"max_turns": 1}, READ, "turn limit reached (1/1 model calls)"),
        ({"max_tokens": 10}, READ, "token limit reached (19/10 tokens)"),
        ({"run_max_tokens": 10}, READ, "run token limit reached (19/10 tokens)"),
        ({"run_max_turns": 1}, READ, "run turn limit reached (1/1 model calls)"),
    ],
)
def test_an_agent_limit_ends_the_agent_with_a_partial_result_naming_it(tmp_path, limits, first, words):
    path = _react(tmp_path, first, **limits)
    (finished,) = _events(path, "agent_finished")
    assert finished["payload"]["status"] == "partial"
    assert words in finished["payload"]["reason"]
    if "token limit" in words:  # a spent token budget pays for no summary, and says so
        assert finished["payload"]["text"] == "" and "no summary call" in finished["payload"]["reason"]
        assert len(_events(path, "model_request")) == 1
    else:
        assert finished["payload"]["text"] == "the summary so far"
    (report,) = session_reports(path)
    assert report["status"] == "partial" and report["exit_code"] == 1
    assert words in report["exit_reason"]
    assert report["limits"] == {"max_turns": 50, **limits}  # the default turn limit is a limit too


def test_a_time_limit_cuts_the_work_call_and_keeps_a_quarter_for_the_summary(tmp_path):
    # The summary has to make a real HTTP round trip inside that quarter,
    # so the limit grows with the machine's load.
    limit = round(4.0 * current_scale(), 1)
    path = _react(tmp_path, Reply(tool_calls=[("read_file", {"path": "notes.txt"})], delay=limit * 0.85),
                  max_seconds=limit)
    (finished,) = _events(path, "agent_finished")
    assert finished["payload"]["status"] == "partial"
    assert f"time limit reached ({limit:g}s, the last {limit / 4:g}s kept for the summary)" in finished["payload"]["reason"]
    assert finished["payload"]["text"] == "the summary so far"
    assert [e["payload"]["kind"] for e in _events(path, "model_error")] == ["deadline"]
    (report,) = session_reports(path)
    assert report["status"] == "partial" and report["exit_code"] == 1
    assert report["limits"] == {"max_turns": 50, "max_seconds": limit}


def _chain(tmp_path, planner_delay: float = 0.0, **limits):
    plan = task_plan(("one", []), ("two", ["t1"]), ("three", ["t2"]))
    plan.delay = planner_delay
    script = Script({"planner": [plan], "task": [Reply(content="done")] * 3})
    return record(tmp_path, "plan", "three in a row", script, **limits)


@pytest.mark.parametrize(
    ("limits", "kind", "words", "completed"),
    [
        ({"run_max_tokens": 30}, "tokens", "run token limit reached (38/30 tokens)", ["task_1"]),
        ({"run_max_turns": 3}, "turns", "run turn limit reached (3/3 model calls)", ["task_1", "task_2"]),
    ],
)
def test_a_run_limit_stops_dispatching(tmp_path, limits, kind, words, completed):
    delay = 0.3 if kind == "seconds" else 0.0
    path = _chain(tmp_path, delay, **limits)
    (limit,) = _events(path, "run_limit")
    assert limit["payload"]["limit"] == kind and words in limit["payload"]["reason"]
    dispatched = [line["payload"]["task_id"] for line in _events(path, "dispatch")]
    assert dispatched == completed
    lines = lines_of(path)
    at = lines.index(limit)
    assert not any(line["event"] == "dispatch" for line in lines[at:])
    (report,) = session_reports(path)
    statuses = {t["id"]: t["status"] for t in report["tasks"]}
    assert [t for t, s in statuses.items() if s == "COMPLETED"] == completed
    assert all(s == "SKIPPED" for t, s in statuses.items() if t not in completed)
    assert report["status"] == "FAILED" and report["exit_reason"] == f"stopped: {limit['payload']['reason']}"


def test_the_run_time_limit_cuts_a_slow_planner_and_nothing_is_dispatched(tmp_path):
    path = _chain(tmp_path, 0.6, run_max_seconds=0.2)
    assert not _events(path, "dispatch")
    assert [e["payload"]["kind"] for e in _events(path, "model_error")] == ["deadline"]
    (outcome,) = _events(path, "run_outcome")
    assert outcome["payload"]["status"] == "FAILED" and outcome["payload"]["text"].startswith("planning failed")


def test_no_limit_no_stop(tmp_path):
    path = _chain(tmp_path, run_max_tokens=10_000)
    assert not _events(path, "run_limit")
    (report,) = session_reports(path)
    assert report["ok"] and report["exit_reason"] == "every task completed"


def test_run_budget_arithmetic_and_the_agent_budget_consults_it():
    run = RunBudget(max_tokens=100, max_turns=3)
    agent = Budget(max_tokens=1_000, run=run)
    assert agent.exceeded() is None and run.exceeded_kind() is None
    run.charge(60)
    run.charge(39)
    assert agent.exceeded() is None
    run.charge(1)
    assert run.exceeded_kind() == ("turns", "run turn limit reached (3/3 model calls)")
    assert agent.exceeded() == "run turn limit reached (3/3 model calls)"
    assert RunBudget(max_tokens=5).exceeded() is None
