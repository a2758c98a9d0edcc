"""Real ledgers for the run-record tests: the real Session, agents, plan
executor and team orchestrator, with a scripted model behind the real HTTP
client (ScriptedTransport), and the scripted replies they are built from. No
tests here; the test_records_* files and the e2e tests import these helpers."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

from paicli_tui.config.settings import Settings
from paicli_tui.records.ledger import read_ledger
from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
from paicli_tui.policy.approval import AutoApprover

from tests.support.timing import scaled

TIMEOUT_S = 20


def team_plan(*steps: tuple[str, list[str]]) -> Reply:
    entries = [{"id": f"s{i}", "description": d, "dependencies": deps} for i, (d, deps) in enumerate(steps, 1)]
    return Reply(content=json.dumps({"summary": "the plan", "steps": entries}))


def task_plan(*tasks: tuple[str, list[str]], kind: str = "ANALYSIS") -> Reply:
    """A /plan plan; ``kind``: every task's type (which tools a task gets on a
    local server: tests write files from their tasks)."""
    entries = [{"id": f"t{i}", "description": d, "type": kind, "dependencies": deps}
               for i, (d, deps) in enumerate(tasks, 1)]
    return Reply(content=json.dumps({"summary": "the plan", "tasks": entries}))


def done(result: str) -> Reply:
    return Reply(content=json.dumps({"status": "completed", "result": result}))


def approve() -> Reply:
    return Reply(content='{"approved": true, "summary": "good", "issues": []}')


def reject(issue: str) -> Reply:
    return Reply(content=json.dumps({"approved": False, "issues": [issue]}))


def broken() -> Reply:
    """A non-retryable HTTP error: the agent fails, so does its task."""
    return Reply(status=400, body=json.dumps({"error": {"message": "bad request"}}))


def record(tmp_path: Path, kind: str, goal: str, script: Script, **settings) -> Path:
    """Run ``goal`` in ``kind`` mode to its end; return the ledger path."""
    from paicli_tui.session.live import Session

    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    config = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0, **settings)
    session = Session(config, workspace, approver=AutoApprover(), transport=ScriptedTransport(script))
    try:
        start = {"react": session.start_react, "plan": session.start_plan, "team": session.start_team}[kind]
        start(goal).result(timeout=scaled(TIMEOUT_S))
    finally:
        session.close()
    return session.ledger.path


class StepResponder:
    """Workers answer ``<step>-try<n>``; reviewers reject ``reject_first``'s
    first try and approve everything else. Decided by content, not by arrival
    order, so parallel runs record the same story every time."""

    def __init__(self, reject_first: str) -> None:
        self.reject_first = reject_first
        self.step_of: dict[str, str] = {}
        self.tries: dict[str, int] = {}
        self._lock = threading.Lock()

    def __call__(self, request) -> Reply:
        text = str(request.messages[-1].get("content", "")) if request.messages else ""
        if request.agent.startswith("reviewer"):
            return reject("not yet") if f"{self.reject_first}-try1" in text else approve()
        with self._lock:
            found = re.search(r"Your step: (step_\d+)", text)
            step = found.group(1) if found else self.step_of.get(request.agent, "?")
            self.step_of[request.agent] = step
            self.tries[step] = self.tries.get(step, 0) + 1
            return done(f"{step}-try{self.tries[step]}")


def team_with_retry(tmp_path: Path) -> Path:
    """Two workers: step_1 rejected once then approved, step_2 needs step_1,
    step_3 runs alongside step_1."""
    script = Script({"planner": [team_plan(("A", []), ("B needs A", ["s1"]), ("C alone", []))]},
                    default=StepResponder("step_1"))
    return record(tmp_path, "team", "A then B, and C", script, workers=2)


def team_failure(tmp_path: Path) -> Path:
    """One worker: step_1 rejected three times (FAILED), step_2 needs it
    (SKIPPED), step_3 independent (COMPLETED)."""
    script = Script({
        "planner": [team_plan(("A", []), ("B needs A", ["s1"]), ("C alone", []))],
        "worker": [done("a1"), done("a2"), done("a3"), done("c")],
        "reviewer": [reject("no"), reject("still no"), reject("never"), approve()],
    })
    return record(tmp_path, "team", "A then B, and C", script, workers=1)


def plan_with_replan(tmp_path: Path) -> Path:
    """task_1 fails (HTTP 400), the run replans into two tasks that complete."""
    script = Script({
        "planner": [task_plan(("fetch", []), ("use it", ["t1"])), task_plan(("fetch again", []), ("use it", ["t1"]))],
        "task_1": [broken(), Reply(content="fetched")],
        "task_2": [Reply(content="used")],
    })
    return record(tmp_path, "plan", "fetch and use", script, parallelism=2)


def lines_of(path: Path) -> list[dict]:
    return [line.data for line in read_ledger(path)]


def write_lines(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path
