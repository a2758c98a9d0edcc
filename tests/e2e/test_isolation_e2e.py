"""Task isolation end to end: `paicli run` as a subprocess against the
loopback server, in real git repositories (and a plain directory)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from paicli_tui.llm.offline.scripted import RecordedRequest, Reply, Script
from tests.e2e.test_team_e2e import Rendezvous
from tests.support.cli import events, ledger_lines, run_paicli
from tests.support.gitrepo import CALC, git, make_git_workspace, make_plain_workspace
from tests.support.recorder import approve, done, reject, task_plan, team_plan
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

BROKEN = CALC.replace("a + b", "a - b")
PRINT_ADD = "python3 -c \"import sys; sys.path.insert(0, 'src'); import calc; print('ADD', calc.add(2, 2))\""


def ledger_path(home):
    return sorted((home / "history" / "raw").glob("*.jsonl"))[0]


def paicli(server, workspace, home, mode: str, goal: str, *extra: str):
    return run_paicli(["run", "--mode", mode, "--yes", "--base-url", server.base_url, "--model", "m",
                       "--workspace", str(workspace), *extra, goal], home=home, cwd=workspace, timeout=100)


def tool_results(request: RecordedRequest) -> list[str]:
    return [m["content"] for m in request.messages if m.get("role") == "tool"]


def breaks_add() -> list[Reply]:
    return [Reply(tool_calls=[("write_file", {"path": "src/calc.py", "content": BROKEN})]), done("add subtracts")]


def test_the_issue_scenario_a_rejected_step_leaves_calc_untouched_and_its_sibling_prints_add_4(tmp_path, paicli_home):
    workspace = make_git_workspace(tmp_path / "ws")
    status_before = git(workspace, "status", "--porcelain")
    script = Script({
        "planner": [team_plan(("make add subtract", []), ("print add", []))],
        "worker-1": breaks_add() * 3,
        "worker-2": [Reply(tool_calls=[("execute_command", {"command": PRINT_ADD})]), done("printed")],
        "reviewer-step_1": [reject("add must add")] * 3,
        "reviewer-step_2": [approve()],
    })
    both = Rendezvous(script, {"worker-1", "worker-2"})
    with LoopbackServer(both) as server:
        proc = paicli(server, workspace, paicli_home, "team", "calc things")
        requests = list(server.requests)

    assert proc.returncode != 0  # step s1 failed
    assert not both.missed
    assert (workspace / "src" / "calc.py").read_text() == CALC
    assert git(workspace, "status", "--porcelain") == status_before
    printed = [t for r in requests if r.agent == "worker-2" for t in tool_results(r)]
    assert any("ADD 4" in text for text in printed), printed
    lines = ledger_lines(paicli_home)
    assert len(events(lines, "task_committed")) == 4  # three rejected attempts and one unchanged step
    assert events(lines, "task_merged") == []
    verify = run_paicli(["verify", str(ledger_path(paicli_home))], home=paicli_home, cwd=workspace)
    assert verify.returncode == 0, verify.stdout + verify.stderr


def two_writers(mode: str):
    """Two parallel tasks writing the same line of src/calc.py differently."""
    def writes(text: str) -> list[Reply]:
        return [Reply(tool_calls=[("write_file", {"path": "src/calc.py", "content": CALC.replace("a + b", text)})]),
                done(text) if mode == "team" else Reply(content=f"wrote {text}")]
    plan = team_plan(("one", []), ("two", [])) if mode == "team" else task_plan(("one", []), ("two", []), kind="FILE_WRITE")
    workers = ("worker-1", "worker-2") if mode == "team" else ("task_1", "task_2")
    return plan, workers, writes


def test_on_conflict_fail_exits_with_the_failure_code_and_verify_then_catches_a_tampered_merge(tmp_path, paicli_home):
    workspace = make_git_workspace(tmp_path / "ws")
    plan, workers, writes = two_writers("plan")
    script = Script({"planner": [plan], workers[0]: writes("a + b + 0"), workers[1]: writes("b + a")})
    both = Rendezvous(script, set(workers))
    with LoopbackServer(both) as server:
        proc = paicli(server, workspace, paicli_home, "plan", "two writers", "--on-conflict", "fail")
    assert proc.returncode != 0
    lines = ledger_lines(paicli_home)
    assert len(events(lines, "merge_conflict")) == 1 and len(events(lines, "task_merged")) == 1
    statuses = [line["payload"]["status"] for line in events(lines, "status")]
    assert "CONFLICT" in statuses
    final = (workspace / "src" / "calc.py").read_text()
    assert "<<<<<<<" not in final and ("a + b + 0" in final or "b + a" in final)

    assert run_paicli(["verify", str(ledger_path(paicli_home))], home=paicli_home, cwd=workspace).returncode == 0
    ledger = sorted((paicli_home / "history" / "raw").glob("*.jsonl"))[0]
    text = ledger.read_text()
    merged = events(lines, "task_merged")[0]["payload"]
    ledger.write_text(text.replace(f'"result": "{merged["result"]}"', '"result": "' + "0" * 40 + '"', 1)
                      if f'"result": "{merged["result"]}"' in text
                      else text.replace(f'"result":"{merged["result"]}"', '"result":"' + "0" * 40 + '"', 1))
    tampered = run_paicli(["verify", str(ledger_path(paicli_home))], home=paicli_home, cwd=workspace)
    assert tampered.returncode != 0
    assert "merge-records" in tampered.stdout + tampered.stderr


def test_apply_branch_leaves_the_files_alone_and_makes_a_branch(tmp_path, paicli_home):
    workspace = make_git_workspace(tmp_path / "ws")
    script = Script({"planner": [task_plan(("write", []), kind="FILE_WRITE")],
                     "task_1": [Reply(tool_calls=[("write_file", {"path": "new.txt", "content": "new\n"})]),
                            Reply(content="wrote it")]})
    with LoopbackServer(script) as server:
        proc = paicli(server, workspace, paicli_home, "plan", "write a file", "--apply", "branch")
    assert proc.returncode == 0, proc.stderr
    assert not (workspace / "new.txt").exists()
    branches = git(workspace, "branch", "--list", "paicli/*")
    assert branches.strip().startswith("paicli/")
    assert git(workspace, "show", f"{branches.strip()}:new.txt") == "new"


def test_a_plain_directory_works_the_same(tmp_path, paicli_home):
    workspace = make_plain_workspace(tmp_path / "ws")
    script = Script({"planner": [task_plan(("one", []), ("two", []), ("three", ["t1", "t2"]), kind="FILE_WRITE")],
                     "task_1": [Reply(tool_calls=[("write_file", {"path": "a.txt", "content": "A"})]), Reply(content="a")],
                     "task_2": [Reply(tool_calls=[("write_file", {"path": "b.txt", "content": "B"})]), Reply(content="b")],
                     "task_3": [Reply(tool_calls=[("read_file", {"path": "a.txt"})]),
                            Reply(tool_calls=[("read_file", {"path": "b.txt"})]), Reply(content="c")]})
    with LoopbackServer(script) as server:
        proc = paicli(server, workspace, paicli_home, "plan", "two files then read them")
        requests = list(server.requests)
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "a.txt").read_text() == "A" and (workspace / "b.txt").read_text() == "B"
    reads = [t for r in requests if r.agent == "task_3" for t in tool_results(r)]
    assert any("A" in t for t in reads) and any("B" in t for t in reads)
    assert not (workspace / ".git").exists()


def test_paicli_report_shows_each_tasks_files_lines_and_whether_it_was_merged(tmp_path, paicli_home):
    workspace = make_git_workspace(tmp_path / "ws")
    script = Script({"planner": [task_plan(("write", []), ("nothing", []), kind="FILE_WRITE")],
                     "task_1": [Reply(tool_calls=[("write_file", {"path": "new.txt", "content": "a\nb\n"})]),
                                Reply(content="wrote it")],
                     "task_2": [Reply(content="changed nothing")]})
    with LoopbackServer(script) as server:
        proc = paicli(server, workspace, paicli_home, "plan", "write a file")
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "new.txt").read_text() == "a\nb\n"
    report = run_paicli(["report", "--json", str(ledger_path(paicli_home))], home=paicli_home, cwd=workspace)
    assert report.returncode == 0, report.stderr
    tasks = {t["id"]: t for t in json.loads(report.stdout.strip().splitlines()[-1])["tasks"]}
    assert (tasks["task_1"]["files"], tasks["task_1"]["added"], tasks["task_1"]["merged"]) == (1, 2, True)
    assert (tasks["task_2"]["files"], tasks["task_2"]["merged"]) == (0, False)
