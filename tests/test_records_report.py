"""The JSON report rebuilt from real ledgers (team, plan with a replan)."""

from __future__ import annotations

import pytest

from paicli_tui.records.report import session_reports
from tests.support.recorder import lines_of, plan_with_replan, team_failure, team_with_retry

pytestmark = pytest.mark.timeout(30)


def _tasks(report) -> dict:
    return {(t["plan_version"], t["id"]): t for t in report["tasks"]}


def test_team_report_has_attempts_verdicts_workers_tokens_and_times(tmp_path):
    path = team_with_retry(tmp_path)
    (report,) = session_reports(path)
    assert (report["kind"], report["ok"], report["status"], report["exit_code"]) == ("team", True, "COMPLETED", 0)
    assert report["exit_reason"] == "every task completed"
    assert report["schedule"] == {"policy": "ready", "parallelism": 2, "workers": ["worker-1", "worker-2"], "max_replans": 2}
    assert [v["origin"] for v in report["plan_versions"]] == ["initial"]
    tasks = _tasks(report)
    step_1, step_2 = tasks[(1, "step_1")], tasks[(1, "step_2")]
    assert (step_1["attempts"], step_1["worker"], step_1["status"]) == (2, "worker-1", "COMPLETED")
    assert [(v["attempt"], v["approved"]) for v in step_1["verdicts"]] == [(1, False), (2, True)]
    assert step_1["verdicts"][0]["feedback"] == "- not yet"
    assert step_2["dependencies"] == ["step_1"] and step_2["description"] == "B needs A"
    assert step_2["started"] >= step_1["finished"] >= step_1["started"]
    # step_1: two worker calls and two reviews at the scripted 12 + 7 tokens each
    assert step_1["tokens"] == {"prompt": 48, "completion": 28, "cached": 0}
    assert step_2["tokens"] == {"prompt": 24, "completion": 14, "cached": 0}
    responses = [line for line in lines_of(path) if line["event"] == "model_response"]
    assert report["totals"]["model_calls"] == len(responses)
    assert report["totals"]["tokens"]["prompt"] == sum(r["payload"]["prompt_tokens"] for r in responses)
    spent_on_steps = sum(t["tokens"]["prompt"] for t in report["tasks"])
    assert spent_on_steps + report["agents"]["planner"]["prompt"] == report["totals"]["tokens"]["prompt"]
    assert report["totals"]["retries"] == 1 and report["totals"]["tasks"] == {"completed": 3}


def test_failed_team_run_names_the_failure_as_the_exit_reason(tmp_path):
    (report,) = session_reports(team_failure(tmp_path))
    assert report["exit_code"] == 1 and report["status"] == "FAILED"
    assert report["exit_reason"].startswith("step_1 FAILED: rejected by review 3 times")
    assert report["totals"]["tasks"] == {"failed": 1, "skipped": 1, "completed": 1}
    assert _tasks(report)[(1, "step_2")]["error"] == "dependency step_1 failed"


def test_plan_report_keeps_every_version_and_its_tasks(tmp_path):
    (report,) = session_reports(plan_with_replan(tmp_path))
    assert [(v["version"], v["origin"]) for v in report["plan_versions"]] == [(1, "initial"), (2, "replan")]
    assert report["plan_versions"][1]["plan"]["tasks"][0]["description"] == "fetch again"
    tasks = _tasks(report)
    assert tasks[(1, "task_1")]["status"] == "FAILED" and "HTTP 400" in tasks[(1, "task_1")]["error"]
    assert tasks[(1, "task_2")]["status"] == "SKIPPED"
    assert tasks[(2, "task_1")]["status"] == tasks[(2, "task_2")]["status"] == "COMPLETED"
    assert tasks[(2, "task_1")]["description"] == "fetch again"
    assert report["totals"]["replans"] == 1 and report["ok"]


def test_an_unfinished_run_says_so(tmp_path):
    path = team_with_retry(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if '"event": "run_finished"' in line)
    path.write_text("".join(lines[:cut]), encoding="utf-8")
    (report,) = session_reports(path)
    assert report["exit_code"] is None and report["exit_reason"].startswith("unfinished")


def test_text_report_has_a_row_per_step_a_lane_per_worker_and_every_result(tmp_path):
    from paicli_tui.present.report_text import render_text

    (report,) = session_reports(team_with_retry(tmp_path))
    out = render_text([report])
    header = next(i for i, line in enumerate(out) if line.startswith("TASK "))
    rows = {line.split()[0]: line.split() for line in out[header + 1:header + 4]}
    assert set(rows) == {"step_1", "step_2", "step_3"}
    assert rows["step_1"][1:5] == ["completed", rows["step_1"][2], "2", "✗"] and rows["step_1"][5] == "✓"
    lanes = [line for line in out if "│" in line]
    assert sorted(line.split()[0] for line in lanes) == ["worker-1", "worker-2"]
    for task in report["tasks"]:
        at = out.index(f"── {task['id']} ──")
        assert out[at + 1:at + 1 + len(task["result"].splitlines())] == task["result"].rstrip().splitlines()


def test_markdown_report_is_a_table_a_timeline_and_folded_results(tmp_path):
    from paicli_tui.present.report_text import render_markdown

    (report,) = session_reports(team_with_retry(tmp_path))
    text = render_markdown([report])
    lines = text.splitlines()
    table = [line for line in lines if line.startswith("| step_")]
    assert len(table) == 3 and all(line.count(" | ") == 10 for line in table)  # with CHANGES and MERGED
    assert "```text" in lines and text.count("<details>") == 3 + bool(report["answer"])
    assert ("<details><summary>answer</summary>" in text) == bool(report["answer"])
