"""The issue's /team scenario through the real orchestrator, client, tool
registry and git: step_1 rewrites src/calc.py and is rejected three times
while step_2, in parallel, imports calc and prints ADD 2+2."""

from __future__ import annotations

import json
import threading

import pytest

from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.config.settings import Settings
from paicli_tui.events import EventBus, MergeConflict, TaskMerged, TaskStatusChanged
from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.offline.scripted import Reply, ScriptedTransport
from paicli_tui.plan.model import PlanStatus, TaskStatus
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.prompting.assembler import PromptAssembler
from paicli_tui.team.orchestrator import TeamOrchestrator
from paicli_tui.workspace import IsolatedRun
from paicli_tui.workspace.apply import apply_run
from paicli_tui.workspace.resolver import HeadlessResolver, TaskIsolation
from tests.support.gitrepo import CALC, git, make_git_workspace
from tests.test_team_orchestrator import StepScript, approve, done, plan_of, reject

pytestmark = pytest.mark.timeout(120)

BROKEN = CALC.replace("a + b", "a - b")
PRINT_ADD = "python3 -c \"import sys; sys.path.insert(0, 'src'); import calc; print('ADD', calc.add(2, 2))\""


def attempt_that_breaks_add() -> list[Reply]:
    return [
        Reply(tool_calls=[("read_file", {"path": "src/calc.py"})]),
        Reply(tool_calls=[("write_file", {"path": "src/calc.py", "content": BROKEN})]),
        done("add now subtracts"),
    ]


class IsolatedTeam:
    def __init__(self, tmp_path, script: StepScript, workers: int = 2) -> None:
        self.workspace = make_git_workspace(tmp_path / "ws")
        self.settings = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0,
                                 workers=workers)
        self.bus = EventBus("test-session", mode="team")
        self.events: list = []
        self.bus.subscribe(self.events.append)
        client = ChatClient(base_url=self.settings.base_url, model="m", session_id="test-session", bus=self.bus,
                            transport=ScriptedTransport(script), max_retries=0)
        self.orchestrator = TeamOrchestrator(
            client=client, registry=ToolRegistry(self.workspace, self.settings),
            assembler=PromptAssembler(self.workspace), bus=self.bus, approver=AutoApprover(),
            settings=self.settings, approval_mode="auto",
        )
        self.run_ = IsolatedRun.begin_run(self.workspace, "team-run", tmp_path / "isolation", bus=self.bus)

    def run(self, plan, on_conflict: str = "rerun"):
        isolation = TaskIsolation(self.run_, HeadlessResolver(on_conflict))
        try:
            report = self.orchestrator.run("the goal", plan, threading.Event(), isolation=isolation)
            apply_run(self.run_, "tree")
        finally:
            self.run_.close()
        return report

    def of(self, kind) -> list:
        return [e for e in self.events if isinstance(e, kind)]


def tool_results(request) -> list[str]:
    return [m["content"] for m in request.messages if m.get("role") == "tool"]


def test_a_rejected_step_never_reaches_the_workspace_or_its_parallel_sibling(tmp_path):
    script = StepScript(
        workers={
            "step_1": attempt_that_breaks_add() * 3,
            "step_2": [Reply(tool_calls=[("execute_command", {"command": PRINT_ADD})]), done("printed")],
        },
        reviewers={"step_1": [reject("add must add")] * 3, "step_2": [approve()]},
        together={"step_1", "step_2"},
    )
    team = IsolatedTeam(tmp_path, script)
    status_before = git(team.workspace, "status", "--porcelain")
    report = team.run(plan_of(("make add subtract", []), ("print add", [])))

    assert not script.missed  # both steps really were in flight at once
    assert report.plan.task("step_1").status is TaskStatus.FAILED
    assert report.plan.task("step_2").status is TaskStatus.COMPLETED
    assert (team.workspace / "src" / "calc.py").read_text() == CALC
    assert git(team.workspace, "status", "--porcelain") == status_before  # only the person's own changes
    # step_2's command saw the start state, never step_1's half-done work.
    step_2_after_command = script.of("worker", "step_2")[1]
    assert "ADD 4" in tool_results(step_2_after_command)[-1]
    # Every attempt of step_1 read the clean file: a retry starts from the base.
    worker_requests = script.of("worker", "step_1")
    reads = [tool_results(r)[i] for r, i in ((worker_requests[1], -1), (worker_requests[4], -1), (worker_requests[7], -1))]
    assert all("def add(a, b):\n    return a + b" in text for text in reads)
    # The reviewer saw the diff, not only the worker's words.
    review = script.of("reviewer", "step_1")[0].messages[-1]["content"]
    assert "-    return a + b" in review and "+    return a - b" in review and "src/calc.py" in review
    assert [e.task_id for e in team.of(TaskMerged)] == []  # step_2 changed nothing: nothing merged


def test_approved_steps_changing_the_same_lines_conflict_and_the_rerun_lands_on_top(tmp_path):
    def writes(text: str) -> list[Reply]:
        return [Reply(tool_calls=[("write_file", {"path": "src/calc.py", "content": CALC.replace("a + b", text)})]),
                done(text)]

    # Either step may merge first; the other conflicts and reruns, so both have a second try.
    script = StepScript(
        workers={"step_1": writes("a + b + 0") + writes("a + b + 0 + 0"), "step_2": writes("b + a") + writes("b + a + 0")},
        reviewers={"step_1": [approve(), approve()], "step_2": [approve(), approve()]},
        together={"step_1", "step_2"},
    )
    team = IsolatedTeam(tmp_path, script)
    report = team.run(plan_of(("one", []), ("two", [])))
    assert report.status is PlanStatus.COMPLETED, report.summary
    statuses = [e.status for e in team.of(TaskStatusChanged) if e.task_id == team.of(MergeConflict)[0].task_id]
    assert "CONFLICT" in statuses and statuses[-1] == "COMPLETED"
    rerun_request = [r for r in script.requests if "could not be merged" in json.dumps(r.messages)]
    assert rerun_request, "the rerun was told about the conflict"
    final = (team.workspace / "src" / "calc.py").read_text()
    assert "+ 0" in final and "<<<<<<<" not in final


def test_on_conflict_fail_fails_the_step_and_keeps_the_first_merge(tmp_path):
    def writes(text: str) -> list[Reply]:
        return [Reply(tool_calls=[("write_file", {"path": "src/calc.py", "content": CALC.replace("a + b", text)})]),
                done(text)]

    script = StepScript(
        workers={"step_1": writes("a + b + 0"), "step_2": writes("b + a")},
        reviewers={"step_1": [approve()], "step_2": [approve()]},
        together={"step_1", "step_2"},
    )
    team = IsolatedTeam(tmp_path, script)
    report = team.run(plan_of(("one", []), ("two", [])), on_conflict="fail")
    failed = [t for t in report.plan.tasks if t.status is TaskStatus.FAILED]
    assert len(failed) == 1 and "merge conflict in src/calc.py" in failed[0].error
    final = (team.workspace / "src" / "calc.py").read_text()
    assert final.count("<<<<<<<") == 0 and ("a + b + 0" in final or "b + a" in final)
