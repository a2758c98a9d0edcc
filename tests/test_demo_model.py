"""The offline demo model (P-1.7) through the real ChatClient (real SSE bytes),
the real agent loop, tool registry, planner and team orchestrator, on a
temporary workspace."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from paicli_tui import events as ev
from paicli_tui.agent.loop import Agent
from paicli_tui.config.settings import Settings
from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.offline.demo import DemoTransport
from paicli_tui.llm.offline.demo_roles import SCRATCH_FILE
from paicli_tui.plan import PlanStatus, TaskStatus, parse_plan
from paicli_tui.plan.context import task_message
from paicli_tui.plan.planner import Planner
from paicli_tui.prompting.assembler import PromptAssembler, with_turn_context
from paicli_tui.team import parse_review_verdict, parse_worker_report
from paicli_tui.team.orchestrator import TeamOrchestrator
from paicli_tui.team.step_context import retry_message, review_message, step_message
from paicli_tui.policy.approval import ApprovalRequest, Decision
from paicli_tui.agent.registry import ToolRegistry

pytestmark = pytest.mark.timeout(30)

GOAL = "explain this project"
READ_ONLY_TOOLS = {"list_dir", "read_file", "glob_files", "grep_code"}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "widgets").mkdir(parents=True)
    (root / "README.md").write_text("# Widget Forge\n\nBuilds widgets.\n\n## Usage\n\nRun `forge`.\n")
    (root / "pyproject.toml").write_text('[project]\nname = "widget-forge"\ndescription = "Builds widgets"\n')
    (root / "widgets" / "forge.py").write_text("class Forge:\n    pass\n\n\ndef make_widget():\n    return Forge()\n")
    return root


class Demo:
    """One demo session's real parts: a client on the demo transport, a bus
    recording every event, the tool registry and the prompt assembler."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.settings = Settings(provider="demo")
        self.bus = ev.EventBus("s-demo")
        self.events: list[ev.Event] = []
        self.bus.subscribe(self.events.append)
        self.client = ChatClient.from_settings(self.settings, session_id="s-demo", bus=self.bus, transport=DemoTransport(pace=0))
        self.registry = ToolRegistry(workspace, self.settings)
        self.assembler = PromptAssembler(workspace)

    def agent(self, name: str, role: str, *, tools: bool = True, **prompt_options) -> Agent:
        system = self.assembler.system_prompt(role, **prompt_options)
        return Agent(name, client=self.client, system_prompt=system, registry=self.registry if tools else None, bus=self.bus)

    def tool_calls(self, actor: str | None = None) -> list[tuple[str, dict, str]]:
        return [
            (event.tool, json.loads(event.arguments), event.call_id)
            for event in self.events
            if isinstance(event, ev.ToolCallStarted) and actor in (None, event.actor)
        ]

    def of(self, kind: type) -> list:
        return [event for event in self.events if isinstance(event, kind)]


@pytest.fixture
def demo(workspace):
    session = Demo(workspace)
    yield session
    session.client.close()


def ask(agent: Agent, text: str):
    return agent.run_turn(with_turn_context(text), cancel=threading.Event())


# -- the interactive agent -------------------------------------------------------------


def test_react_lists_then_reads_the_readme_and_answers_from_it(demo):
    outcome = ask(demo.agent("react", "react"), "What is this project?")

    assert outcome.status == "final"
    calls = [(name, args) for name, args, _ in demo.tool_calls()]
    assert calls == [("list_dir", {"path": "."}), ("read_file", {"path": "README.md"})]
    assert "Widget Forge" in outcome.text and "`pyproject.toml`" in outcome.text and "7 lines" in outcome.text
    last_call = demo.of(ev.ModelDelta)[-1].call_id
    kinds = [delta.kind for delta in demo.of(ev.ModelDelta) if delta.call_id == last_call]
    assert kinds.index("reasoning") < kinds.index("content") and kinds.count("content") > 5
    assert outcome.usage.completion_tokens > 0 and outcome.usage.prompt_tokens > 0


def test_react_without_readme_searches_definitions(demo, workspace):
    (workspace / "README.md").unlink()
    outcome = ask(demo.agent("react", "react"), "Where is the code?")
    assert [name for name, _, _ in demo.tool_calls()] == ["list_dir", "grep_code"]
    assert "`make_widget`" in outcome.text and "`Forge`" in outcome.text


def test_react_explains_it_is_read_only_when_asked_to_change_things(demo, workspace):
    before = {path: path.read_bytes() for path in workspace.rglob("*") if path.is_file()}
    outcome = ask(demo.agent("react", "react"), "Please edit README.md and run the tests")
    assert "only reads" in outcome.text and "Switch to ASK mode" in outcome.text
    assert {name for name, _, _ in demo.tool_calls()} <= READ_ONLY_TOOLS
    assert {path: path.read_bytes() for path in workspace.rglob("*") if path.is_file()} == before


class _Answer:
    def __init__(self, decision: Decision) -> None:
        self.decision = decision
        self.requests: list[ApprovalRequest] = []

    def request(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return self.decision


def _ask_mode_agent(demo, approver) -> Agent:
    agent = demo.agent("react", "react", approval_mode="ask")
    agent.approval_mode, agent.approver = "ask", approver
    return agent


def test_in_ask_mode_a_change_request_reaches_the_approval_dialog_and_writes_only_the_scratch_file(demo, workspace):
    before = {path: path.read_bytes() for path in workspace.rglob("*") if path.is_file()}
    approver = _Answer(Decision.YES)
    agent = _ask_mode_agent(demo, approver)
    outcome = agent.run_turn(with_turn_context("change the README title", approval_mode="ask"),
                             cancel=threading.Event())
    [request] = approver.requests
    assert request.tool == "write_file" and request.arguments["path"] == SCRATCH_FILE
    assert "+You asked: change the README title" in request.preview
    scratch = workspace / SCRATCH_FILE
    assert "change the README title" in scratch.read_text()
    after = {path: path.read_bytes() for path in workspace.rglob("*") if path.is_file() and path != scratch}
    assert after == before
    assert outcome.status == "final" and f"I wrote `{SCRATCH_FILE}`" in outcome.text


def test_in_ask_mode_a_declined_scratch_write_changes_nothing(demo, workspace):
    before = {path: path.read_bytes() for path in workspace.rglob("*") if path.is_file()}
    agent = _ask_mode_agent(demo, _Answer(Decision.NO))
    outcome = agent.run_turn(with_turn_context("please fix the typo", approval_mode="ask"), cancel=threading.Event())
    assert {path: path.read_bytes() for path in workspace.rglob("*") if path.is_file()} == before
    assert outcome.text.startswith("Nothing changed") and "denied by the user" in outcome.text


def test_react_second_turn_looks_again_with_new_call_ids(demo):
    agent = demo.agent("react", "react")
    ask(agent, "What is this?")
    first = len(demo.tool_calls())
    ask(agent, "And again?")
    ids = [call_id for _, _, call_id in demo.tool_calls()]
    assert first == 2 and len(ids) == 4 and len(set(ids)) == 4


def test_react_reports_a_failed_read_as_such(demo, workspace):
    (workspace / "README.md").write_bytes(b"\x00\x01binary")
    outcome = ask(demo.agent("react", "react"), "What is this?")
    assert "`read_file` on `README.md` failed" in outcome.text


# -- planners ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("role", "prefix"), [("planner", "task"), ("team-planner", "step")])
def test_planner_returns_one_json_plan_with_a_parallel_round(demo, role, prefix):
    messages = [
        {"role": "system", "content": demo.assembler.system_prompt(role)},
        {"role": "user", "content": with_turn_context(f"Make a plan for: {GOAL}")},
    ]
    result = demo.client.chat(messages, agent="planner")
    plan = parse_plan(result.content, id_prefix=prefix)
    assert len(plan.batches()[0]) >= 2 and plan.batches()[-1] == [f"{prefix}_4"]
    assert plan.task(f"{prefix}_4").dependencies == [f"{prefix}_1", f"{prefix}_2", f"{prefix}_3"]
    assert result.content.startswith("{") and result.reasoning and not result.tool_calls


def test_team_and_plan_planners_are_told_apart(demo):
    plan = Planner(demo.client, demo.assembler, role="planner").create(GOAL)
    team = Planner(demo.client, demo.assembler, role="team-planner", id_prefix="step").create(GOAL)
    assert "the plan can answer" in plan.summary and "the team can answer" in team.summary


def test_amendment_adds_a_visible_task_and_keeps_the_rest(demo):
    planner = Planner(demo.client, demo.assembler, role="planner")
    first = planner.create(GOAL)
    amended = planner.revise(first, GOAL, "also check the tests folder")
    assert len(amended.tasks) == len(first.tasks) + 1
    added = amended.tasks[-1]
    assert "also check the tests folder" in added.description and not added.dependencies
    assert [task.to_dict() for task in amended.tasks[:3]] == [task.to_dict() for task in first.tasks[:3]]
    assert amended.task("task_4").dependencies == ["task_1", "task_2", "task_3", added.id]
    assert "amended" in amended.summary and len(amended.batches()[0]) == 4


def test_replan_gets_a_smaller_plan_for_the_remaining_work(demo):
    planner = Planner(demo.client, demo.assembler, role="planner")
    plan = planner.create(GOAL)
    plan.task("task_1").status = TaskStatus.COMPLETED
    plan.task("task_1").result = "- `README.md`: 7 lines."
    plan.task("task_2").status = TaskStatus.FAILED
    replanned = planner.replan(GOAL, plan, plan.task("task_2"), "the model call failed")
    assert 1 < len(replanned.tasks) < len(plan.tasks) and len(replanned.batches()[0]) >= 2


# -- plan tasks ---------------------------------------------------------------------------------


def test_plan_task_reads_the_file_its_description_names(demo):
    plan = Planner(demo.client, demo.assembler, role="planner").create(GOAL)
    agent = demo.agent("task_3", "task", task_type="FILE_READ")
    outcome = ask(agent, task_message(GOAL, plan, plan.task("task_3")))
    assert ("read_file", {"path": "pyproject.toml"}) in [(name, args) for name, args, _ in demo.tool_calls("task_3")]
    assert "`widget-forge`" in outcome.text and not outcome.text.startswith("{")


def test_summary_task_builds_on_its_dependencies(demo):
    plan = Planner(demo.client, demo.assembler, role="planner").create(GOAL)
    for task_id in ("task_1", "task_2", "task_3"):
        plan.task(task_id).status = TaskStatus.COMPLETED
        plan.task(task_id).result = f"- `{task_id}.txt`: fact from {task_id}."
    outcome = ask(demo.agent("task_4", "task", task_type="ANALYSIS"), task_message(GOAL, plan, plan.task("task_4")))
    assert "Summary of 3 earlier result(s)" in outcome.text and "fact from task_3" in outcome.text
    assert 1 <= len(demo.tool_calls("task_4")) <= 2


# -- the team: workers and the reviewer ---------------------------------------------------------


def review(demo: Demo, agent: str, plan, step_id: str, result: str):
    reviewer = demo.agent(agent, "team-reviewer", tools=False)
    return parse_review_verdict(ask(reviewer, review_message(GOAL, plan.task(step_id), result)).text)


def test_worker_reports_parse_and_step_2_is_rejected_once(demo):
    plan = Planner(demo.client, demo.assembler, role="team-planner", id_prefix="step").create(GOAL)
    worker = demo.agent("worker-2", "team-worker")
    first = parse_worker_report(ask(worker, step_message(GOAL, plan, plan.task("step_2"), {})).text)
    assert first.status == "completed" and "`widgets/forge.py`" in first.result
    assert {name for name, _, _ in demo.tool_calls()} == {"list_dir", "glob_files"}

    verdict = review(demo, "reviewer-step_2", plan, "step_2", first.result)
    assert not verdict.approved and "Name the file" in verdict.feedback

    calls_before = len(demo.tool_calls())
    second = parse_worker_report(ask(worker, retry_message(verdict.feedback)).text)
    assert second.status == "completed" and "Name the file" in second.result and "`widgets/forge.py`" in second.result
    assert len(demo.tool_calls()) == calls_before  # the retry reuses what the tools already showed
    assert review(demo, "reviewer-step_2", plan, "step_2", second.result).approved
    assert review(demo, "reviewer", plan, "step_2", second.result).approved
    assert not review(demo, "reviewer", plan, "step_2", first.result).approved  # step id read from the message
    assert review(demo, "reviewer-step_1", plan, "step_1", first.result).approved


def test_team_run_shows_one_rejection_and_its_retry(demo):
    orchestrator = TeamOrchestrator(
        client=demo.client, registry=demo.registry, assembler=demo.assembler, bus=demo.bus, approver=None, settings=demo.settings
    )
    plan = orchestrator.plan(GOAL)
    report = orchestrator.run(GOAL, plan, threading.Event())

    assert report.status is PlanStatus.COMPLETED
    verdicts = [(v.step_id, v.attempt, v.approved) for v in demo.of(ev.ReviewVerdictGiven)]
    assert [v for v in verdicts if not v[2]] == [("step_2", 1, False)]
    assert ("step_2", 2, True) in verdicts and len(verdicts) == len(plan.tasks) + 1
    assert [(r.step_id, r.attempt) for r in demo.of(ev.StepRetry)] == [("step_2", 2)]
    assert {r.status for r in demo.of(ev.WorkerReportParsed)} == {"completed"}
    assert {name for name, _, _ in demo.tool_calls()} <= READ_ONLY_TOOLS
    assert "Widget Forge" in report.plan.task("step_4").result


# -- determinism and robustness --------------------------------------------------------------------


def raw_reply(body: dict, agent: str) -> bytes:
    with httpx.Client(transport=DemoTransport(pace=0)) as http:
        response = http.post("http://demo.invalid/v1/chat/completions", json=body, headers={"X-PaiCLI-Agent": agent})
        assert response.status_code == 200
        return response.read()


def test_same_request_gives_the_same_bytes(workspace):
    tools = ToolRegistry(workspace, Settings(provider="demo")).schemas()
    body = {"model": "demo", "stream": True, "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": "what is this?"}], "tools": tools}
    first = raw_reply(body, "react")
    assert first == raw_reply(body, "react") and b"list_dir" in first
    other = dict(body, messages=[{"role": "user", "content": "hello there"}])
    assert raw_reply(other, "react") != first  # the call id follows the conversation
    unstreamed = json.loads(raw_reply(dict(body, stream=False), "react"))
    call_id = unstreamed["choices"][0]["message"]["tool_calls"][0]["id"]
    assert call_id.startswith("call_") and call_id != "call_0"


def test_parallel_agents_do_not_disturb_each_other(demo):
    plan = Planner(demo.client, demo.assembler, role="team-planner", id_prefix="step").create(GOAL)

    def run(step_id: str) -> str:
        worker = demo.agent(f"worker-{step_id[-1]}", "team-worker")
        return ask(worker, step_message(GOAL, plan, plan.task(step_id), {})).text

    alone = [run(step_id) for step_id in ("step_1", "step_2", "step_3")]
    with ThreadPoolExecutor(max_workers=3) as pool:
        together = list(pool.map(run, ("step_1", "step_2", "step_3")))
    assert together == alone


@pytest.mark.parametrize("agent", ["mystery-agent", ""])
def test_unexpected_agents_get_a_polite_plain_answer(demo, agent):
    result = demo.client.chat([{"role": "user", "content": "hi"}], agent=agent)
    assert "demo model" in result.content and not result.tool_calls


def test_oddly_shaped_request_still_gets_a_plain_answer():
    messages = [42, {"role": "user", "content": None}]
    body = {"model": "demo", "stream": False, "messages": messages, "tools": [{"function": "x"}]}
    message = json.loads(raw_reply(body, "react"))["choices"][0]["message"]
    assert "demo model" in message["content"] and "tool_calls" not in message
