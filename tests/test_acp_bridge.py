"""The ACP front end's parts without a subprocess: the stdout guard over
real pipes, engine events as session updates, the pump's ordering under
threads, and approvals over the SDK's own in-memory connection."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from acp import connect_to_agent
from acp._transport import memory_transport_pair  # the SDK's in-memory pair: tests only
from acp.core import AgentSideConnection

from paicli_tui import events as ev
from paicli_tui.acp.bridge import UpdatePump
from paicli_tui.acp.questions import AcpApprover
from paicli_tui.acp.translate import UpdateTranslator
from paicli_tui.policy.approval import ApprovalRequest, Decision
from paicli_tui.policy.grants import parse_rule
from tests.support.acp_client import RecordingClient

ROOT = Path(__file__).resolve().parents[1]
PLAN = {"tasks": [
    {"id": "task_1", "description": "read", "type": "ANALYSIS", "dependencies": []},
    {"id": "task_2", "description": "edit", "type": "IMPLEMENTATION", "dependencies": ["task_1"]},
    {"id": "task_3", "description": "look around", "type": "ANALYSIS", "dependencies": []},
]}


def dumped(updates) -> list[dict]:
    return [u.model_dump(by_alias=True, exclude_none=True, mode="json") for u in updates]


def test_a_stray_print_and_a_child_s_output_never_reach_the_protocol_stream():
    script = textwrap.dedent("""
        import asyncio, os, subprocess
        from paicli_tui.acp.stdio import protected_stdio

        async def main():
            reader, writer = await protected_stdio()
            print("a stray print")
            subprocess.run(["echo", "a child's output"])
            line = await reader.readline()
            writer.write(b"protocol:" + line)
            await writer.drain()

        asyncio.run(main())
    """)
    done = subprocess.run([sys.executable, "-c", script], input=b'{"jsonrpc": "2.0"}\n', capture_output=True,
                          timeout=30, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout == b'protocol:{"jsonrpc": "2.0"}\n'
    assert b"a stray print" in done.stderr and b"a child's output" in done.stderr


def test_plan_entries_follow_task_status_with_failures_marked_in_the_text(tmp_path):
    translator = UpdateTranslator(tmp_path)
    (first,) = dumped(translator.updates(ev.PlanProposed("planner", 1, "initial", "g", PLAN)))
    assert [(e["content"], e["priority"], e["status"]) for e in first["entries"]] == [
        ("task_1: read", "high", "pending"), ("task_2: edit", "high", "pending"), ("task_3: look around", "low",
                                                                                   "pending")]
    translator.updates(ev.TaskStatusChanged("task_1", "task_1", "RUNNING"))
    translator.updates(ev.StepRetry("task_1", "task_1", 2, "hook: tests fail"))
    (running,) = dumped(translator.updates(ev.TaskStatusChanged("task_3", "task_3", "FAILED", error="boom")))
    assert [(e["content"], e["status"]) for e in running["entries"]] == [
        ("task_1: read (attempt 2)", "in_progress"), ("task_2: edit", "pending"),
        ("✗ failed: boom — task_3: look around", "completed")]


def test_an_edit_carries_its_diff_and_parallel_workers_get_distinct_call_ids(tmp_path):
    (tmp_path / "a.py").write_text("old\n")
    translator = UpdateTranslator(tmp_path)
    (started,) = dumped(translator.updates(ev.ToolCallStarted("task_1", "call_0", "edit_file", '{"path": "a.py"}')))
    (tmp_path / "a.py").write_text("new\n")
    (finished,) = dumped(translator.updates(ev.ToolCallFinished("task_1", "call_0", "edit_file", True, "ok", "done")))
    (other,) = dumped(translator.updates(ev.ToolCallStarted("task_2", "call_0", "execute_command", '{"command": "ls"}')))
    assert (started["toolCallId"], started["kind"], started["title"]) == ("task_1:call_0", "edit", "edit_file: a.py")
    assert finished["content"][1] == {"type": "diff", "path": str(tmp_path / "a.py"), "oldText": "old\n",
                                      "newText": "new\n"}
    assert (other["toolCallId"], other["kind"]) == ("task_2:call_0", "execute")
    assert translator.updates(ev.ModelDelta("planner", "c", "content", '{"tasks"')) == []


async def test_the_pump_keeps_each_thread_s_order_and_flush_waits_for_all(tmp_path):
    sent: list[str] = []

    async def send(update) -> None:
        await asyncio.sleep(0)
        sent.append(update.content.text)

    pump = UpdatePump(asyncio.get_running_loop(), send, UpdateTranslator(tmp_path))

    def publish(thread: int) -> None:
        for n in range(200):
            pump(ev.ModelDelta("react", "c", "content", f"{thread}:{n}"))

    threads = [threading.Thread(target=publish, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    await asyncio.to_thread(lambda: [thread.join() for thread in threads])
    await pump.flush()
    await pump.close()
    assert len(sent) == 800 and pump.message_chunks == 800
    for t in range(4):
        assert [int(s.split(":")[1]) for s in sent if s.startswith(f"{t}:")] == list(range(200))


class SilentClient(RecordingClient):
    """A client that never answers a permission request."""

    async def request_permission(self, session_id, tool_call, options, **kwargs):
        self.permissions.append((tool_call.tool_call_id, tool_call.title or "", [o.option_id for o in options]))
        await asyncio.Event().wait()


class Editor:
    """The agent side's connection to an in-memory client, as the server holds it."""

    def __init__(self, client) -> None:
        agent_end, client_end = memory_transport_pair()
        self.agent = AgentSideConnection(_NoAgent(), agent_end)
        self.client = connect_to_agent(client, client_end)


class _NoAgent:
    def on_connect(self, conn) -> None:
        pass


def _request() -> ApprovalRequest:
    grant = parse_rule("path: out.txt")
    return ApprovalRequest("react", "write_file", {"path": "out.txt"}, "writes a file", "+two", grants=(grant,),
                           call_id="call_7")


async def test_allow_always_answers_with_the_offered_grant(tmp_path):
    client = RecordingClient(lambda title, options: "always")
    editor = Editor(client)
    pump = UpdatePump(asyncio.get_running_loop(), lambda update: asyncio.sleep(0), UpdateTranslator(tmp_path))
    approver = AcpApprover(pump, lambda: editor.agent, "s1", lambda: False)
    answer = await asyncio.to_thread(approver.request, _request())
    assert answer.decision is Decision.ALWAYS and answer.grant == _request().grants[0]
    assert client.permissions == [("react:call_7", "write_file: out.txt", ["yes", "always", "no"])]


async def test_a_cancelled_run_stops_waiting_for_an_answer(tmp_path):
    client = SilentClient()
    editor = Editor(client)
    cancelled = threading.Event()
    pump = UpdatePump(asyncio.get_running_loop(), lambda update: asyncio.sleep(0), UpdateTranslator(tmp_path))
    approver = AcpApprover(pump, lambda: editor.agent, "s1", cancelled.is_set)
    asking = asyncio.create_task(asyncio.to_thread(approver.request, _request()))
    while not client.permissions:
        await asyncio.sleep(0.01)
    began = time.monotonic()
    cancelled.set()
    answer = await asking
    assert answer.decision is Decision.NO and time.monotonic() - began < 0.5
