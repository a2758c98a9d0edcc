"""`paicli run --mode plan` end to end: the real binary as a subprocess
against a loopback OpenAI-compatible server; assertions on the server's
recorded requests and on the ledger (issue 4)."""

from __future__ import annotations

import json
import signal
import time

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import events, ledger_lines, paicli_env, run_paicli, start_paicli
from tests.support.server import LoopbackServer
from tests.support.timing import scaled, wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(90)]


def plan(*tasks: tuple[str, list[str]]) -> Reply:
    """A planner reply; task i gets the planner id ``t<i>``."""
    entries = [{"id": f"t{i}", "description": d, "type": "ANALYSIS", "dependencies": deps}
               for i, (d, deps) in enumerate(tasks, 1)]
    return Reply(content=json.dumps({"summary": "the plan", "tasks": entries}))


def ok(text: str, delay: float = 0.0) -> Reply:
    return Reply(content=text, delay=delay)


def broken() -> Reply:
    """A 400: not retried, so the task's agent fails and so does the task."""
    return Reply(status=400, body=json.dumps({"error": {"message": "bad request"}}))


def _run(server, workspace, home, *args, stdin=None):
    return run_paicli(
        ["run", "--mode", "plan", "--base-url", server.base_url, "--model", "m", "--workspace", str(workspace), *args],
        home=home, cwd=workspace, stdin=stdin, timeout=60,
        env=paicli_env(home, PAICLI_MAX_RETRIES="0"),
    )


def _status_times(lines, task_id, status):
    return [line["ts"] for line in events(lines, "status")
            if line["payload"]["task_id"] == task_id and line["payload"]["status"] == status]


def _final_statuses(lines) -> dict[str, str]:
    final = {}
    for line in events(lines, "status"):
        final[line["payload"]["task_id"]] = line["payload"]["status"]
    return final


def test_diamond_runs_its_two_middle_tasks_at_the_same_time(workspace, paicli_home):
    script = Script({
        "planner": [plan(("read", []), ("left", ["t1"]), ("right", ["t1"]), ("join", ["t2", "t3"]))],
        "task_1": [ok("read done")],
        "task_2": [ok("left done", delay=0.6)],
        "task_3": [ok("right done", delay=0.6)],
        "task_4": [ok("joined")],
    })
    with LoopbackServer(script) as server:
        proc = _run(server, workspace, paicli_home, "--yes", "diamond")
    assert proc.returncode == 0, proc.stderr
    lines = ledger_lines(paicli_home)
    start2, start3 = _status_times(lines, "task_2", "RUNNING")[0], _status_times(lines, "task_3", "RUNNING")[0]
    end2, end3 = _status_times(lines, "task_2", "COMPLETED")[0], _status_times(lines, "task_3", "COMPLETED")[0]
    assert start2 < end3 and start3 < end2  # the middle tasks overlapped
    assert _status_times(lines, "task_4", "RUNNING")[0] > max(end2, end3)
    # the join task saw both direct dependencies' full results
    join = next(r for r in script.requests if r.agent == "task_4")
    first_user = next(m["content"] for m in join.messages if m["role"] == "user")
    assert "left done" in first_user and "right done" in first_user and "read done" not in first_user
    assert all(r.tools is None for r in script.requests if r.agent == "planner")


def test_line_review_amendment_then_run(workspace, paicli_home):
    script = Script({
        "planner": [plan(("read", [])), plan(("read", []), ("test it", ["t1"]))],
        "task_1": [ok("read done")],
        "task_2": [ok("tested")],
    })
    with LoopbackServer(script) as server:
        proc = _run(server, workspace, paicli_home, "make it so", stdin="also add a test step\n\n")
    assert proc.returncode == 0, proc.stderr
    planner_requests = [r for r in script.requests if r.agent == "planner"]
    assert len(planner_requests) == 2
    revision = planner_requests[1].messages[-1]["content"]
    assert "Amendment: also add a test step" in revision and '"task_1"' in revision
    assert "1 task" in proc.stdout and "2 tasks" in proc.stdout  # both versions were shown for review
    assert [e["payload"]["origin"] for e in events(ledger_lines(paicli_home), "plan_version")] == ["initial", "amendment"]
    assert {r.agent for r in script.requests} == {"planner", "task_1", "task_2"}


def test_early_failure_replans_and_nothing_starts_after_the_trigger(workspace, paicli_home):
    script = Script({
        "planner": [
            plan(("fails", []), ("slow sibling", []), ("after 1", ["t1"]), ("after 2", ["t2"])),
            plan(("retry differently", [])),
        ],
        "task_1": [broken(), ok("recovered")],
        "task_2": [ok("sibling done", delay=0.8)],
    })
    with LoopbackServer(script) as server:
        proc = _run(server, workspace, paicli_home, "--yes", "replan me")
    lines = ledger_lines(paicli_home)
    names = [line["event"] for line in lines]
    trigger = names.index("replan_triggered")
    next_version = names.index("plan_version", trigger)
    assert "dispatch" not in names[trigger:next_version]  # P-4.6: no new task after the trigger
    # the in-flight sibling was allowed to finish
    assert "sibling done" in json.dumps([line for line in lines[trigger:next_version] if line["event"] == "status"])
    replan_request = [r for r in script.requests if r.agent == "planner"][1]
    assert "bad request" in replan_request.messages[-1]["content"]
    assert events(lines, "run_finished")[-1]["payload"]["status"] == "COMPLETED"
    assert proc.returncode == 0, proc.stderr


def test_late_failure_skips_only_its_dependents(workspace, paicli_home):
    script = Script({
        "planner": [plan(("a", []), ("b", []), ("c", ["t1", "t2"]), ("fails", ["t3"]), ("after fail", ["t4"]),
                         ("unrelated slow", ["t1"]))],
        "task_1": [ok("a")],
        "task_2": [ok("b")],
        "task_3": [ok("c")],
        "task_4": [broken()],
        "task_6": [ok("unrelated done", delay=1.0)],
    })
    with LoopbackServer(script) as server:
        proc = _run(server, workspace, paicli_home, "--yes", "half way")
    assert proc.returncode == 1
    lines = ledger_lines(paicli_home)
    assert events(lines, "replan_triggered") == []
    assert _final_statuses(lines) == {
        "task_1": "COMPLETED", "task_2": "COMPLETED", "task_3": "COMPLETED",
        "task_4": "FAILED", "task_5": "SKIPPED", "task_6": "COMPLETED",
    }
    assert [r.agent for r in script.requests].count("planner") == 1


def test_replan_limit_then_skip(workspace, paicli_home):
    failing = plan(("fails", []), ("after", ["t1"]))
    script = Script({"planner": [failing, failing, failing], "task_1": [broken(), broken(), broken()]})
    with LoopbackServer(script) as server:
        proc = _run(server, workspace, paicli_home, "--yes", "keeps failing")
    assert proc.returncode == 1
    lines = ledger_lines(paicli_home)
    assert len(events(lines, "replan_triggered")) == 2
    assert [r.agent for r in script.requests].count("planner") == 3
    assert events(lines, "run_finished")[-1]["payload"]["status"] == "FAILED"


def test_sigint_mid_run_cancels_and_exits_130(workspace, paicli_home):
    script = Script({
        "planner": [plan(("slow", []), ("after", ["t1"]))],
        "task_1": [Reply(content="slow " * 400, chunk_chars=4, chunk_delay=0.05)],
    })
    with LoopbackServer(script) as server:
        proc = start_paicli(
            ["run", "--mode", "plan", "--yes", "--base-url", server.base_url,
             "--model", "m", "--workspace", str(workspace), "be slow"],
            home=paicli_home, cwd=workspace,
        )
        wait_until(lambda: any(r.agent == "task_1" for r in script.requests), "task_1's first request", 20)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=scaled(30))
    assert proc.returncode == 130, err
    lines = ledger_lines(paicli_home)
    assert events(lines, "run_finished")[-1]["payload"]["status"] == "CANCELLED"
    assert _final_statuses(lines).get("task_2") == "SKIPPED"


def _run_without_mode(server, workspace, home, *args):
    return run_paicli(["run", "--yes", "--base-url", server.base_url, "--model", "m", "--workspace", str(workspace), *args],
                      home=home, cwd=workspace, timeout=60)


@pytest.mark.parametrize("key, kind", [("tasks", "plan"), ("steps", "team")])
def test_a_plan_file_runs_in_the_mode_it_was_saved_from(key, kind, workspace, paicli_home, tmp_path):
    saved = tmp_path / "saved.json"
    saved.write_text(json.dumps({"summary": "saved", key: [{"id": "a", "description": "look", "dependencies": []}]}))
    script = Script({"task_1": [ok("looked")], "worker": [Reply(content='{"status": "completed", "result": "looked"}')],
                     "reviewer": [Reply(content='{"approved": true, "summary": "fine", "issues": []}')]})
    with LoopbackServer(script) as server:
        result = _run_without_mode(server, workspace, paicli_home, "--plan-file", str(saved))
        actors = {request.agent for request in server.requests}
    assert result.returncode == 0, result.stderr
    assert "nothing to do" not in result.stderr
    (started,) = [line for line in ledger_lines(paicli_home) if line["event"] == "run_requested"]
    assert started["payload"]["kind"] == kind
    assert "planner" not in actors  # a saved plan is not planned again


def test_a_plan_file_with_react_mode_is_a_usage_error(workspace, paicli_home, tmp_path):
    saved = tmp_path / "saved.json"
    saved.write_text(json.dumps({"tasks": [{"id": "a", "description": "look", "dependencies": []}]}))
    result = run_paicli(["run", "--demo", "--mode", "react", "--plan-file", str(saved), "--workspace", str(workspace)],
                        home=paicli_home, cwd=workspace)
    assert result.returncode == 2
    assert "--plan-file" in result.stderr and "--mode plan" in result.stderr and "Traceback" not in result.stderr


def test_the_final_answer_reaches_stdout_in_full(workspace, paicli_home):
    """Task previews in the summary are cut; the answer a script reads is not."""
    answer = "## Conclusion\n\n" + " ".join(f"finding-{i}" for i in range(120)) + "\n\nTHE END"
    script = Script({
        "planner": [plan(("gather", []), ("conclude", ["t1"]))],
        "task_1": [ok("gathered " * 50)],
        "task_2": [ok(answer)],
    })
    with LoopbackServer(script) as server:
        proc = _run(server, workspace, paicli_home, "--yes", "conclude")
    assert proc.returncode == 0, proc.stderr
    assert answer in proc.stdout
    assert "finding-119" in proc.stdout and proc.stdout.rstrip().endswith("THE END")
    (finished,) = events(ledger_lines(paicli_home), "run_finished")
    assert finished["payload"]["answer"] == answer
