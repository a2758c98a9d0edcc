"""A run that changed nothing is not "COMPLETED": `paicli run --mode plan`
as a subprocess against a loopback server whose task answers in prose
without calling a tool (what small local models do) ends partial, exit 1,
and says so; the same plan whose task writes the file completes."""

from __future__ import annotations

import json

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import events, ledger_lines, paicli_env, run_paicli
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(90)]


def write_plan(kind: str = "FILE_WRITE") -> Reply:
    task = {"id": "t1", "description": "rename greet to welcome in app.py", "type": kind, "dependencies": []}
    return Reply(content=json.dumps({"summary": "rename", "tasks": [task]}))


def run_plan(server, workspace, home):
    return run_paicli(["run", "--mode", "plan", "--yes", "--base-url", server.base_url, "--model", "m",
                       "--workspace", str(workspace), "rename greet to welcome"],
                      home=home, cwd=workspace, timeout=60, env=paicli_env(home, PAICLI_MAX_RETRIES="0"))


def test_a_write_task_answered_in_prose_is_partial_nothing_changed(workspace, paicli_home):
    script = Script({"planner": [write_plan()], "task_1": [Reply(content="The function greet is renamed to welcome.")]})
    with LoopbackServer(script) as server:
        proc = run_plan(server, workspace, paicli_home)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "partial: nothing was changed" in proc.stdout + proc.stderr
    assert "0 tool calls · no files changed" in proc.stdout + proc.stderr
    (outcome,) = events(ledger_lines(paicli_home), "run_outcome")
    assert outcome["payload"]["ok"] is False and outcome["payload"]["status"] == "PARTIAL"


def test_a_write_task_that_wrote_the_file_completes(workspace, paicli_home):
    write = Reply(tool_calls=[("write_file", {"path": "app.py", "content": "def welcome():\n    pass\n"})])
    script = Script({"planner": [write_plan()], "task_1": [write, Reply(content="renamed")]})
    with LoopbackServer(script) as server:
        proc = run_plan(server, workspace, paicli_home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (workspace / "app.py").read_text() == "def welcome():\n    pass\n"
    (outcome,) = events(ledger_lines(paicli_home), "run_outcome")
    assert outcome["payload"]["ok"] is True and outcome["payload"]["status"] == "COMPLETED"


def test_an_analysis_plan_answered_in_prose_still_completes(workspace, paicli_home):
    script = Script({"planner": [write_plan("ANALYSIS")], "task_1": [Reply(content="greet is defined in app.py")]})
    with LoopbackServer(script) as server:
        proc = run_plan(server, workspace, paicli_home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
