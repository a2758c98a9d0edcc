"""`paicli report` with task isolation: per task the files and lines it
changed, whether it was merged, and its diff against its base (bounded),
read back from the workspace's real shadow repository after a real /plan
run against the scripted model."""

from __future__ import annotations

import json

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.workspace.diffs import DIFF_LIMIT
from tests.support.cli import run_paicli
from tests.support.gitrepo import CALC, make_git_workspace
from tests.support.recorder import record, task_plan

pytestmark = pytest.mark.timeout(60)

BIG = "".join(f"line {n} of a long generated table\n" for n in range(2000))


def writes(path: str, content: str, said: str) -> list[Reply]:
    return [Reply(tool_calls=[("write_file", {"path": path, "content": content})]), Reply(content=said)]


def plan_run(tmp_path):
    """task_1 makes add multiply, task_2 writes a file too big to show whole,
    task_3 only reads."""
    make_git_workspace(tmp_path / "ws")
    script = Script({
        "planner": [task_plan(("make add multiply", []), ("write the table", []), ("look around", []))],
        "task_1": writes("src/calc.py", CALC.replace("a + b", "a * b"), "add multiplies"),
        "task_2": writes("table.txt", BIG, "table written"),
        "task_3": [Reply(content="looked")],
    })
    return record(tmp_path, "plan", "three things", script, parallelism=2)


def report(ledger, home, *flags: str):
    done = run_paicli(["report", str(ledger), *flags], home=home, cwd=ledger.parent, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_text_report_shows_changes_merges_and_bounded_diffs(tmp_path, paicli_home):
    ledger = plan_run(tmp_path)
    out = report(ledger, paicli_home).splitlines()
    header = next(line for line in out if line.startswith("TASK "))
    assert "CHANGES" in header and "MERGED" in header
    rows = {line.split()[0]: line for line in out if line.startswith("task_")}
    assert "1 file +1 −1" in rows["task_1"] and " yes " in rows["task_1"]
    assert "1 file +2000 −0" in rows["task_2"]
    assert "no changes" in rows["task_3"]
    at = out.index("── task_1 diff · 1 file +1 −1 · merged: yes ──")
    calc = out[at + 1:]
    assert "-    return a + b" in calc and "+    return a * b" in calc
    table = "\n".join(out[out.index(next(line for line in out if line.startswith("── task_2 diff"))):])
    assert "[diff cut: " in table and "line 1999 of" not in table
    assert len(table) < DIFF_LIMIT + 500
    assert not any(line.startswith("── task_3 diff") for line in out)


def test_the_markdown_report_folds_each_diff_in_a_diff_fence(tmp_path, paicli_home):
    ledger = plan_run(tmp_path)
    text = report(ledger, paicli_home, "--markdown")
    assert "| CHANGES | MERGED |" in text
    assert "<details><summary>task_1 diff · 1 file +1 −1 · merged: yes</summary>" in text
    fenced = text.split("```diff\n", 1)[1].split("\n```", 1)[0]
    assert "+    return a * b" in fenced


def test_the_json_report_keeps_commit_ids_not_file_content(tmp_path, paicli_home):
    ledger = plan_run(tmp_path)
    (entry,) = [json.loads(line) for line in report(ledger, paicli_home, "--json").splitlines()]
    tasks = {task["id"]: task for task in entry["tasks"]}
    assert (tasks["task_1"]["files"], tasks["task_1"]["added"], tasks["task_1"]["removed"]) == (1, 1, 1)
    assert tasks["task_1"]["merged"] and len(tasks["task_1"]["result_commit"]) == 40
    assert tasks["task_1"]["base_commit"] != tasks["task_1"]["result_commit"]
    assert "diff" not in tasks["task_1"] and "a * b" not in json.dumps(entry)


def test_a_report_whose_shadow_is_gone_still_shows_the_table(tmp_path, paicli_home):
    import shutil

    ledger = plan_run(tmp_path)
    shutil.rmtree(paicli_home / "isolation")
    out = report(ledger, paicli_home)
    assert "1 file +1 −1" in out and "── task_1 diff" not in out
