"""`paicli run --mode team` end to end: the real binary as a subprocess
against a loopback OpenAI-compatible server; assertions on the server's
recorded requests and on the ledger (issue 5)."""

from __future__ import annotations

import threading

import pytest

from paicli_tui.llm.offline.scripted import RecordedRequest, Reply, Script
from tests.support.cli import events, ledger_lines, run_paicli
from tests.support.recorder import approve, done, reject, team_plan
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(60)]


class Rendezvous:
    """Wraps a Script: the first request of each agent in ``agents`` is held
    until all of them have arrived, so passing proves they were in flight
    at the same time (``missed`` names any that waited in vain)."""

    def __init__(self, script: Script, agents: set[str]) -> None:
        self.script = script
        self.agents = agents
        self.arrived: set[str] = set()
        self.missed: set[str] = set()
        self._met = threading.Condition()

    def __call__(self, request: RecordedRequest) -> Reply:
        agent = request.agent
        if agent in self.agents and agent not in self.arrived:
            with self._met:
                self.arrived.add(agent)
                self._met.notify_all()
                if not self._met.wait_for(lambda: self.agents <= self.arrived, timeout=10):
                    self.missed.add(agent)
        return self.script(request)


def _team(server, workspace, home, goal, *extra):
    return run_paicli(
        ["run", "--mode", "team", "--yes", "--base-url", server.base_url, "--model", "m",
         "--workspace", str(workspace), *extra, goal],
        home=home,
        cwd=workspace,
        timeout=45,
    )


def _statuses(lines) -> dict[str, str]:
    final = {}
    for line in events(lines, "status"):
        final[line["payload"]["task_id"]] = line["payload"]["status"]
    return final


def test_independent_steps_run_at_once_on_two_workers_never_more(workspace, paicli_home):
    steps = [("first", []), ("second", []), ("third", [])]
    script = Script({
        "planner": [team_plan(*steps)],
        "worker": [done("ok 1"), done("ok 2"), done("ok 3")],
        "reviewer": [approve(), approve(), approve()],
    })
    both = Rendezvous(script, {"worker-1", "worker-2"})
    with LoopbackServer(both) as server:
        proc = _team(server, workspace, paicli_home, "three independent things")

    assert proc.returncode == 0, proc.stderr
    assert not both.missed, "worker-1 and worker-2 were never in flight together"
    lines = ledger_lines(paicli_home)
    dispatches = [line["payload"] for line in events(lines, "dispatch")]
    assert [(d["task_id"], d["worker"]) for d in dispatches[:2]] == [("step_1", "worker-1"), ("step_2", "worker-2")]
    running: dict[str, str] = {}
    peak = 0
    for line in lines:
        payload = line["payload"]
        if line["event"] == "dispatch" and payload["attempt"] == 1:
            assert payload["worker"] not in running.values()
            running[payload["task_id"]] = payload["worker"]
            peak = max(peak, len(running))
        elif line["event"] == "status" and payload["status"] != "RUNNING":
            running.pop(payload["task_id"], None)
    assert peak == 2
    assert _statuses(lines) == {"step_1": "COMPLETED", "step_2": "COMPLETED", "step_3": "COMPLETED"}
    # only workers are offered tools (P-5.3)
    for request in script.requests:
        if request.agent.startswith("worker-"):
            assert "read_file" in request.tools
        else:
            assert request.agent == "planner" or request.agent.startswith("reviewer"), request.agent
            assert "tools" not in request.body
    reviewers = {line["payload"]["step_id"]: line["actor"] for line in events(lines, "review_started")}
    assert reviewers["step_1"] == "reviewer-step_1" and reviewers["step_2"] == "reviewer-step_2"
    assert all(line["mode"] == "team" for line in lines if line["event"] in ("dispatch", "review_verdict"))
    assert "✅ step_1" in proc.stdout and "✅ step_3" in proc.stdout


def test_three_rejections_fail_the_step_skip_dependents_and_exit_1(workspace, paicli_home):
    script = Script({
        "planner": [team_plan(("A", []), ("B needs A", ["s1"]), ("C alone", []))],
        "worker": [done("a1"), done("a2"), done("a3"), done("c")],
        "reviewer": [reject("no"), reject("still no"), reject("never"), approve()],
    })
    with LoopbackServer(script) as server:
        proc = _team(server, workspace, paicli_home, "do A then B, and C", "--workers", "1")

    assert proc.returncode == 1, proc.stderr
    lines = ledger_lines(paicli_home)
    assert _statuses(lines) == {"step_1": "FAILED", "step_2": "SKIPPED", "step_3": "COMPLETED"}
    failed = [line["payload"] for line in events(lines, "status") if line["payload"]["status"] == "FAILED"]
    assert failed[0]["result"] == "a3" and "rejected by review 3 times" in failed[0]["error"]
    verdicts = [(v["payload"]["step_id"], v["payload"]["approved"]) for v in events(lines, "review_verdict")]
    assert verdicts == [("step_1", False)] * 3 + [("step_3", True)]
    assert {r.agent for r in script.requests} == {"planner", "worker-1", "reviewer"}
    retry = [r for r in script.requests if r.agent == "worker-1"][1]
    assert retry.messages[-1]["content"] == "The previous result was rejected by review, reason: - no"
    assert [line["payload"]["dropped"] for line in events(lines, "history_clear") if line["actor"] == "reviewer"] == [2] * 4
    assert events(lines, "run_finished")[0]["payload"]["status"] == "FAILED"
    assert "❌ step_1" in proc.stdout and "⏭️ step_2" in proc.stdout


def test_blocked_and_invalid_reports_are_never_reviewed(workspace, paicli_home):
    script = Script({
        "planner": [team_plan(("needs a key", []), ("chatty", []))],
        "worker": [Reply(content='{"status": "blocked", "reason": "no key"}'), Reply(content="All done, trust me.")],
    })
    with LoopbackServer(script) as server:
        proc = _team(server, workspace, paicli_home, "two steps", "--workers", "1")

    assert proc.returncode == 1, proc.stderr
    assert {r.agent for r in script.requests} == {"planner", "worker-1"}
    lines = ledger_lines(paicli_home)
    assert _statuses(lines) == {"step_1": "BLOCKED", "step_2": "FAILED"}
    reports = {r["payload"]["step_id"]: r["payload"]["status"] for r in events(lines, "worker_report")}
    assert reports == {"step_1": "blocked", "step_2": "invalid"}


def test_planner_answering_with_tool_calls_fails_the_run_clearly(workspace, paicli_home):
    script = Script({"planner": [Reply(tool_calls=[("write_file", {"path": "x.txt", "content": "x"})])]})
    with LoopbackServer(script) as server:
        proc = _team(server, workspace, paicli_home, "anything")

    assert proc.returncode == 1
    assert "planning failed" in proc.stderr and "this role has no tools; tool call not executed" in proc.stderr
    assert [r.agent for r in script.requests] == ["planner"]
    assert "tools" not in script.requests[0].body
    assert not (workspace / "x.txt").exists()
