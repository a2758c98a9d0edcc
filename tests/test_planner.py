"""Planner (P-4.1, P-4.2 amendments, P-4.6 replans) over a test double of the
chat client interface and the real prompt assembler and parser."""

from __future__ import annotations

import json
import threading

import pytest

from paicli_tui.events import EventBus
from paicli_tui.llm.types import ChatResult, ToolCall
from paicli_tui.plan.executor import PlanExecutor, TaskOutcome
from paicli_tui.plan.model import Plan, PlanStatus, Task, TaskStatus
from paicli_tui.plan.parser import PlanError
from paicli_tui.plan.planner import TOOL_CALL_ERROR, Planner
from paicli_tui.prompting.assembler import PromptAssembler

DIAMOND = json.dumps(
    {
        "summary": "diamond",
        "steps": [
            {"id": "a", "description": "read", "type": "FILE_READ"},
            {"id": "b", "description": "left", "dependencies": ["a"]},
            {"id": "c", "description": "right", "dependencies": ["a"]},
            {"id": "d", "description": "join", "type": "verification", "dependencies": ["b", "c"]},
        ],
    }
)


class ScriptedChat:
    """Answers each chat call with the next scripted reply and records it."""

    def __init__(self, *replies: ChatResult | str) -> None:
        self.replies = [ChatResult(r) if isinstance(r, str) else r for r in replies]
        self.calls: list[dict] = []

    def chat(self, messages, *, agent, tools=None, stream=True, cancel=None, on_delta=None) -> ChatResult:
        self.calls.append({"messages": messages, "agent": agent, "tools": tools, "cancel": cancel})
        return self.replies.pop(0)


@pytest.fixture
def assembler(tmp_path):
    return PromptAssembler(tmp_path)


def recorded(bus: EventBus) -> list:
    events: list = []
    bus.subscribe(events.append)
    return events


def test_create_sends_two_messages_without_tools_and_announces_version_1(assembler):
    client = ScriptedChat(DIAMOND)
    bus = EventBus("s", "plan")
    events = recorded(bus)
    cancel = threading.Event()
    plan = Planner(client, assembler, bus=bus).create("Add a changelog", cancel)
    assert plan.ids == ["task_1", "task_2", "task_3", "task_4"] and plan.goal == "Add a changelog"
    call = client.calls[0]
    assert call["agent"] == "planner" and call["tools"] is None and call["cancel"] is cancel
    system, user = call["messages"]
    assert system == {"role": "system", "content": assembler.system_prompt("planner")}
    assert user["role"] == "user"
    assert user["content"].startswith("<paicli-turn-context>")
    assert user["content"].endswith("Make a plan for: Add a changelog")
    [proposed] = events
    assert (proposed.name, proposed.version, proposed.origin, proposed.goal) == ("plan_version", 1, "initial", "Add a changelog")
    assert proposed.plan["tasks"][3] == {"id": "task_4", "description": "join", "type": "VERIFICATION", "dependencies": ["task_2", "task_3"]}


def test_a_bad_reply_is_an_error_with_no_retry_and_a_rejection_event(assembler):
    client = ScriptedChat('{"steps": [{"id": "a", "description": "x", "dependencies": ["zz"]}]}', DIAMOND)
    bus = EventBus("s", "plan")
    events = recorded(bus)
    with pytest.raises(PlanError, match="zz"):
        Planner(client, assembler, bus=bus).create("goal")
    assert len(client.calls) == 1, "no silent retry"
    assert [(e.name, e.origin) for e in events] == [("plan_rejected", "initial")]
    assert "zz" in events[0].error


def test_tool_calls_from_the_planner_are_refused_and_not_run(assembler):
    reply = ChatResult("", tool_calls=(ToolCall("c1", "read_file", '{"path": "README.md"}'),))
    with pytest.raises(PlanError, match="planner answered with tool calls; this role has no tools; tool call not executed"):
        Planner(ScriptedChat(reply), assembler).create("goal")
    assert TOOL_CALL_ERROR.endswith("tool call not executed")


def test_team_planner_uses_step_ids_and_its_own_role(assembler):
    client = ScriptedChat(DIAMOND)
    plan = Planner(client, assembler, agent="planner", role="team-planner", id_prefix="step").create("goal")
    assert plan.ids[0] == "step_1"
    assert client.calls[0]["messages"][0]["content"] == assembler.system_prompt("team-planner")


def test_revise_sends_the_plan_as_json_and_the_amendment_last(assembler):
    amended = json.loads(DIAMOND)
    amended["steps"].append({"id": "e", "description": "add tests", "dependencies": ["d"]})
    client = ScriptedChat(DIAMOND, json.dumps(amended))
    bus = EventBus("s", "plan")
    events = recorded(bus)
    planner = Planner(client, assembler, bus=bus)
    plan = planner.create("Add a changelog")
    revised = planner.revise(plan, plan.goal, "also add tests")
    user = client.calls[1]["messages"][1]["content"]
    assert json.dumps(plan.to_dict(), indent=2, ensure_ascii=False) in user
    assert user.endswith("\nAmendment: also add tests")
    assert "Goal: Add a changelog" in user
    assert client.calls[1]["tools"] is None and len(client.calls[1]["messages"]) == 2
    assert revised.goal == "Add a changelog\nAmendment: also add tests"
    assert revised.ids[-1] == "task_5"
    assert [(e.version, e.origin) for e in events] == [(1, "initial"), (2, "amendment")]
    assert planner.version == 2


def test_replan_carries_completed_results_and_the_failure_reason(assembler):
    plan = Plan(
        [
            Task("task_1", "read config", status=TaskStatus.COMPLETED, result="port = 8080\nfull text"),
            Task("task_2", "migrate", dependencies=["task_1"], status=TaskStatus.FAILED, error="table missing"),
            Task("task_3", "verify", dependencies=["task_2"]),
        ]
    )
    client = ScriptedChat(DIAMOND)
    bus = EventBus("s", "plan")
    events = recorded(bus)
    new = Planner(client, assembler, bus=bus).replan("Migrate the db", plan, plan.task("task_2"), "table missing")
    user = client.calls[0]["messages"][1]["content"]
    assert "Goal: Migrate the db" in user
    assert "Failure reason: table missing" in user
    assert "- task_1: read config\n  Result:\nport = 8080\nfull text" in user
    assert '"status": "FAILED"' in user
    assert new.goal == "Migrate the db" and len(new.tasks) == 4
    assert events == [], "the executor announces the replan version when it adopts it"


def test_planner_replanner_drives_a_real_replan(assembler):
    client = ScriptedChat('{"steps": [{"id": "fix", "description": "fixed approach"}]}')
    planner = Planner(client, assembler)
    plan = Plan([Task("task_1", "broken approach"), Task("task_2", "after", dependencies=["task_1"])])

    def runner(task, plan, worker, cancel):
        if task.description == "broken approach":
            raise RuntimeError("compiler crashed")
        return TaskOutcome("completed", result="ok")

    report = PlanExecutor(plan, runner, goal="g", replanner=planner.replanner("g")).run(threading.Event())
    assert report.status is PlanStatus.COMPLETED and report.replans == 1
    assert "Failure reason: compiler crashed" in client.calls[0]["messages"][1]["content"]
    assert report.plan.tasks[0].description == "fixed approach"


def test_an_unparsable_replan_fails_the_run_with_the_parse_error(assembler):
    client = ScriptedChat("Sure! Here is the plan: {}")
    plan = Plan([Task("task_1", "broken"), Task("task_2", "after", dependencies=["task_1"])])
    runner = lambda task, *a: TaskOutcome("failed", error="no")  # noqa: E731
    report = PlanExecutor(plan, runner, goal="g", replanner=Planner(client, assembler).replanner("g")).run(threading.Event())
    assert report.status is PlanStatus.FAILED
    assert report.error.startswith("replan failed: ")
