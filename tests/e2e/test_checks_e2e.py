"""A plan's checks and the reviewer's receipts end to end: `paicli run` as a
subprocess against the loopback server, in real git repositories, checks
run in the task's tree in the OS sandbox."""

from __future__ import annotations

import json

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import events, ledger_lines, run_paicli
from tests.support.gitrepo import CALC, make_git_workspace
from tests.support.recorder import approve, done
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def ledger_path(home):
    return sorted((home / "history" / "raw").glob("*.jsonl"))[0]


def paicli(server, workspace, home, mode: str, goal: str, *extra: str):
    return run_paicli(["run", "--mode", mode, "--yes", "--base-url", server.base_url, "--model", "m",
                       "--workspace", str(workspace), *extra, goal], home=home, cwd=workspace, timeout=100)


def plan_with(key: str, *entries: dict) -> Reply:
    return Reply(content=json.dumps({"summary": "the plan", key: list(entries)}))


def user_texts(request) -> str:
    return "\n".join(m["content"] for m in request.messages if m.get("role") == "user" and isinstance(m["content"], str))


def test_a_task_that_claims_a_file_it_never_wrote_fails_its_check_and_its_retry_sees_the_output(tmp_path, paicli_home):
    workspace = make_git_workspace(tmp_path / "ws")
    script = Script({
        "planner": [plan_with("tasks", {"id": "t1", "description": "write notes.md", "type": "FILE_WRITE",
                                        "dependencies": [], "check": "test -f notes.md && echo found || (echo 'notes.md is missing'; exit 3)"})],
        "task_1": [Reply(content="I wrote notes.md"),  # the claim, no tool call
                   Reply(tool_calls=[("write_file", {"path": "notes.md", "content": "notes\n"})]),
                   Reply(content="now notes.md exists")],
    })
    with LoopbackServer(script) as server:
        proc = paicli(server, workspace, paicli_home, "plan", "write notes")
        requests = [r for r in server.requests if r.agent == "task_1"]
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "notes.md").read_text() == "notes\n"
    out = proc.stdout + proc.stderr
    assert "task_1 ✗ check failed (exit 3" in out and "task_1 ⚠ no tool calls" in out
    assert "▶ task_1 → worker-1 (attempt 2)" in out and "task_1 ✓ check passed (exit 0" in out
    retry = user_texts(requests[1])
    assert "The task's check failed" in retry and "exit 3" in retry and "notes.md is missing" in retry
    assert "test -f notes.md" in retry
    lines = ledger_lines(paicli_home)
    checks = [line["payload"] for line in events(lines, "check_ran")]
    assert [(c["attempt"], c["exit_code"], c["passed"]) for c in checks] == [(1, 3, False), (2, 0, True)]
    assert checks[0]["output_tail"].strip() == "notes.md is missing" and len(checks[0]["output_sha256"]) == 64
    receipts = [line["payload"] for line in events(lines, "receipts")]
    assert [(r["tool_calls"], r["check"], tuple(r["flags"])) for r in receipts] == [
        (0, "failed", ("no tool calls",)), (1, "passed", ())]
    assert [line["payload"]["feedback"] for line in events(lines, "retry")][0].startswith("check: check FAILED")
    verify = run_paicli(["verify", str(ledger_path(paicli_home))], home=paicli_home, cwd=workspace)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    report = run_paicli(["report", str(ledger_path(paicli_home))], home=paicli_home, cwd=workspace)
    assert "check passed: `test -f notes.md" in report.stdout, report.stdout
    assert "⚠ no tool calls" in report.stdout


def test_a_check_that_never_passes_fails_the_task_after_three_attempts_without_merging(tmp_path, paicli_home):
    workspace = make_git_workspace(tmp_path / "ws")
    script = Script({
        "planner": [plan_with("tasks", {"id": "t1", "description": "fix calc", "type": "FILE_WRITE",
                                        "dependencies": [], "check": "grep -q 'a \\* b' src/calc.py"})],
        "task_1": [Reply(tool_calls=[("write_file", {"path": "src/calc.py", "content": CALC + "# touched\n"})]),
                   Reply(content="fixed"), Reply(content="fixed again"), Reply(content="really fixed")],
    })
    with LoopbackServer(script) as server:
        proc = paicli(server, workspace, paicli_home, "plan", "fix calc")
    assert proc.returncode != 0
    assert (workspace / "src" / "calc.py").read_text() == CALC  # never merged
    lines = ledger_lines(paicli_home)
    assert [line["payload"]["passed"] for line in events(lines, "check_ran")] == [False, False, False]
    assert events(lines, "task_merged") == []
    failed = [line["payload"] for line in events(lines, "status") if line["payload"]["status"] == "FAILED"]
    assert "its check failed 3 times" in failed[0]["error"]


def test_a_team_reviewer_gets_the_diff_the_commands_and_the_check_result(tmp_path, paicli_home):
    workspace = make_git_workspace(tmp_path / "ws")
    script = Script({
        "planner": [plan_with("steps", {"id": "s1", "description": "add notes", "type": "FILE_WRITE",
                                        "dependencies": [], "check": "grep -q hello notes.md"})],
        "worker-1": [Reply(tool_calls=[("write_file", {"path": "notes.md", "content": "hello\n"})]),
                     Reply(tool_calls=[("execute_command", {"command": "echo counted; exit 4"})]),
                     done("notes written")],
        "reviewer": [approve()],
    })
    with LoopbackServer(script) as server:
        proc = paicli(server, workspace, paicli_home, "team", "notes")
        review = [r for r in server.requests if r.agent == "reviewer"][0]
    assert proc.returncode == 0, proc.stderr
    text = user_texts(review)
    assert "+hello" in text  # the diff line
    assert "check passed: `grep -q hello notes.md` → exit 0" in text
    assert "$ echo counted; exit 4  → exit 4" in text and "counted" in text
    assert "- tool calls: 2" in text
    system = "\n".join(m["content"] for m in review.messages if m.get("role") == "system")
    assert "Cite it" in system
    sent = [line["payload"] for line in events(ledger_lines(paicli_home), "receipts")]
    assert sent[0]["reviewer"] == "reviewer" and sent[0]["check"] == "passed"
    assert sent[0]["commands"] == ["exit 4 · echo counted; exit 4"]


def test_a_worker_that_completes_a_command_step_without_a_tool_call_is_flagged_to_the_reviewer(tmp_path, paicli_home):
    workspace = make_git_workspace(tmp_path / "ws")
    script = Script({
        "planner": [plan_with("steps", {"id": "s1", "description": "run the tests", "type": "COMMAND",
                                        "dependencies": []})],
        "worker-1": [done("all tests pass")],
        "reviewer": [approve()],
    })
    with LoopbackServer(script) as server:
        proc = paicli(server, workspace, paicli_home, "team", "tests")
        review = [r for r in server.requests if r.agent == "reviewer"][0]
    # The run's honest outcome already says nothing changed (partial); the
    # reviewer is told before it judges.
    assert "0 tool calls" in proc.stderr
    text = user_texts(review)
    assert "⚠ no tool calls" in text and "- tool calls: 0" in text and "commands run: none" in text
    sent = events(ledger_lines(paicli_home), "receipts")
    assert sent[0]["payload"]["flags"] == ["no tool calls"]


def tamper(path, event: str, attempt: int, **changes) -> None:
    """Rewrite one event's payload in a ledger (what an edited record looks like)."""
    lines = path.read_text().splitlines()
    for index, text in enumerate(lines):
        data = json.loads(text)
        if data.get("event") == event and data["payload"].get("attempt") == attempt:
            data["payload"].update(changes)
            lines[index] = json.dumps(data)
            break
    else:
        raise AssertionError(f"no {event} attempt {attempt}")
    path.write_text("\n".join(lines) + "\n")


def test_verify_fails_a_ledger_whose_step_was_approved_and_merged_after_its_check_failed(tmp_path, paicli_home):
    workspace = make_git_workspace(tmp_path / "ws")
    script = Script({
        "planner": [plan_with("steps", {"id": "s1", "description": "add notes", "type": "FILE_WRITE",
                                        "dependencies": [], "check": "grep -q hello notes.md"})],
        "worker-1": [done("notes written"),
                     Reply(tool_calls=[("write_file", {"path": "notes.md", "content": "hello\n"})]),
                     done("notes written, really")],
        "reviewer": [approve()],
    })
    with LoopbackServer(script) as server:
        proc = paicli(server, workspace, paicli_home, "team", "notes")
        reviews = [r for r in server.requests if r.agent == "reviewer"]
    assert proc.returncode == 0, proc.stderr
    assert len(reviews) == 1  # the failed check cost no review call
    path = ledger_path(paicli_home)
    assert run_paicli(["verify", str(path)], home=paicli_home, cwd=workspace).returncode == 0
    tamper(path, "check_ran", 2, passed=False, exit_code=1)
    verify = run_paicli(["verify", str(path)], home=paicli_home, cwd=workspace)
    out = verify.stdout + verify.stderr
    assert verify.returncode != 0
    assert "✗ check-failed" in out
    assert "step_1 attempt 2 approved although its check failed" in out
    assert "step_1 merged although its latest check failed" in out


def test_verify_fails_a_ledger_whose_plan_task_completed_after_its_check_failed(tmp_path, paicli_home):
    workspace = make_git_workspace(tmp_path / "ws")
    script = Script({
        "planner": [plan_with("tasks", {"id": "t1", "description": "write notes.md", "type": "FILE_WRITE",
                                        "dependencies": [], "check": "test -f notes.md"})],
        "task_1": [Reply(tool_calls=[("write_file", {"path": "notes.md", "content": "notes\n"})]),
                   Reply(content="wrote it")],
    })
    with LoopbackServer(script) as server:
        proc = paicli(server, workspace, paicli_home, "plan", "write notes")
    assert proc.returncode == 0, proc.stderr
    path = ledger_path(paicli_home)
    assert run_paicli(["verify", str(path)], home=paicli_home, cwd=workspace).returncode == 0
    tamper(path, "check_ran", 1, passed=False, exit_code=1)
    verify = run_paicli(["verify", str(path)], home=paicli_home, cwd=workspace)
    out = verify.stdout + verify.stderr
    assert verify.returncode != 0
    assert "✗ check-failed" in out
    assert "task_1 merged although its latest check failed" in out
    assert "task_1 completed although its latest check failed" in out
