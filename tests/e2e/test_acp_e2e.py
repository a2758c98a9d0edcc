"""`paicli acp` end to end: the real binary as a subprocess, driven by the
Agent Client Protocol SDK's client side over real pipes, against the
scripted loopback model server (or the offline demo model)."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from acp import RequestError, embedded_text_resource, resource_block, resource_link_block, text_block

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.acp_client import RecordingClient, acp_agent, model_args
from tests.support.cli import events, ledger_lines
from tests.support.procs import alive, gone_within
from tests.support.recorder import task_plan
from tests.support.server import LoopbackServer
from tests.support.timing import scaled

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


async def new_session(conn, workspace) -> str:
    return (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id


async def test_demo_needs_no_key_and_answers_a_prompt(workspace, paicli_home):
    async with acp_agent(paicli_home, workspace, "--demo") as (conn, process, client, wire):
        init = client.initialized
        created = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        response = await conn.prompt(session_id=created.session_id, prompt=[text_block("what is here?")])
        # The command list is a notification the agent sends after the
        # session is made, not before the reply: it may still be on its way.
        deadline = time.monotonic() + scaled(10)
        while not client.of_kind("available_commands_update") and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
    assert init.protocol_version == 1 and init.auth_methods == []
    assert init.agent_capabilities.prompt_capabilities.embedded_context
    assert init.agent_info.name == "paicli"
    assert created.modes.current_mode_id == "auto"
    assert {mode.id for mode in created.modes.available_modes} == {"auto", "ask", "plan"}
    assert response.stop_reason == "end_turn"
    assert client.of_kind("agent_message_chunk")
    (commands,) = client.of_kind("available_commands_update")
    assert [c["name"] for c in commands["availableCommands"]] == ["plan", "team", "clear"]
    # stdout carried nothing but the protocol: every line the client read parsed as JSON-RPC
    assert all(message.get("jsonrpc") == "2.0" for _, message in wire)
    assert process.returncode == 0


async def test_react_streams_thoughts_a_tool_call_and_the_answer(workspace, paicli_home):
    script = Script({"react": [Reply(reasoning="look at the notes", tool_calls=[("read_file", {"path": "notes.txt"})]),
                               Reply(content="The notes say alpha.")]})
    with LoopbackServer(script) as server:
        async with acp_agent(paicli_home, workspace, *model_args(server)) as (conn, _, client, wire):
            sid = await new_session(conn, workspace)
            response = await conn.prompt(session_id=sid, prompt=[text_block("what is in notes.txt?")])
    assert response.stop_reason == "end_turn"
    assert client.text("agent_thought_chunk") == "look at the notes"
    assert client.text() == "The notes say alpha."
    (started,) = client.of_kind("tool_call")
    (finished,) = client.of_kind("tool_call_update")
    assert started["kind"] == "read" and started["title"] == "read_file: notes.txt"
    assert started["locations"] == [{"path": str(workspace / "notes.txt")}]
    assert finished["toolCallId"] == started["toolCallId"] and finished["status"] == "completed"
    assert "alpha" in finished["content"][0]["content"]["text"]
    kinds = [u["sessionUpdate"] for u in client.updates]
    assert kinds.index("agent_thought_chunk") < kinds.index("tool_call") < kinds.index("agent_message_chunk")
    # every update of the turn went out before the prompt's response
    answer_at = next(i for i, (_, m) in enumerate(wire) if m.get("result", {}).get("stopReason"))
    assert all(m.get("method") != "session/update" for _, m in wire[answer_at + 1:]
               if m.get("params", {}).get("update", {}).get("sessionUpdate") != "available_commands_update")


async def test_plan_prompt_shows_a_live_plan_whose_entries_change_status(workspace, paicli_home):
    script = Script({"planner": [task_plan(("read the notes", []), ("read the readme", []), ("summarize", ["t1", "t2"]))],
                     "task": [Reply(content="alpha"), Reply(content="no readme"), Reply(content="all read")]})
    with LoopbackServer(script) as server:
        async with acp_agent(paicli_home, workspace, *model_args(server)) as (conn, _, client, _wire):
            sid = await new_session(conn, workspace)
            response = await conn.prompt(session_id=sid, prompt=[text_block("/plan read everything")])
    assert response.stop_reason == "end_turn"
    ((_, title, options),) = client.permissions
    assert title == "Run this plan? (3 tasks in 2 rounds)" and options == ["run", "cancel"]
    plans = [[(e["content"], e["status"]) for e in update["entries"]] for update in client.of_kind("plan")]
    assert [status for _, status in plans[0]] == ["pending"] * 3
    assert [status for _, status in plans[-1]] == ["completed"] * 3
    order = {"pending": 0, "in_progress": 1, "completed": 2}
    for index in range(3):
        seen = [order[plan[index][1]] for plan in plans]
        assert seen == sorted(seen), f"entry {index} went back: {seen}"
        assert 1 in seen, f"entry {index} was never shown running"
    priorities = [e["priority"] for e in client.of_kind("plan")[-1]["entries"]]
    assert priorities == ["high", "high", "high"]  # both branches lead into the last task: all critical
    assert "Plan COMPLETED" in client.text()


async def test_allow_always_is_a_scoped_grant_and_a_risky_command_still_asks(workspace, paicli_home):
    write = ("write_file", {"path": "out.txt", "content": "one\n"})
    rewrite = ("write_file", {"path": "out.txt", "content": "two\n"})
    script = Script({"react": [Reply(tool_calls=[write]), Reply(tool_calls=[rewrite]),
                               Reply(tool_calls=[("execute_command", {"command": "rm -rf src"})]),
                               Reply(content="done")]})
    client = RecordingClient(lambda title, options: "always" if "always" in options else "no")
    with LoopbackServer(script) as server:
        async with acp_agent(paicli_home, workspace, *model_args(server), client=client) as (conn, _, _c, _w):
            sid = await new_session(conn, workspace)
            await conn.set_session_mode(session_id=sid, mode_id="ask")
            response = await conn.prompt(session_id=sid, prompt=[text_block("write twice, then clean")])
    assert response.stop_reason == "end_turn"
    assert (workspace / "out.txt").read_text() == "two\n"
    titles = [title for _, title, _ in client.permissions]
    assert titles == ["write_file: out.txt", "execute_command: rm -rf src"]
    assert client.permissions[0][0] == client.of_kind("tool_call")[0]["toolCallId"]
    assert client.option_kinds == [["allow_once", "allow_always", "reject_once"], ["allow_once", "reject_once"]]
    assert {"sessionUpdate": "current_mode_update", "currentModeId": "ask"} in client.updates
    diff = [c for c in client.of_kind("tool_call_update")[1]["content"] if c["type"] == "diff"]
    assert diff == [{"type": "diff", "path": str(workspace / "out.txt"), "oldText": "one\n", "newText": "two\n"}]
    lines = ledger_lines(paicli_home)
    assert len(events(lines, "grant_added")) == 1
    assert "denied in the editor" in json.dumps(script.requests[-1].messages[-1])


async def test_cancel_mid_stream_ends_with_stop_reason_cancelled(workspace, paicli_home):
    script = Script({"react": [Reply(content="x" * 400, chunk_chars=4, chunk_delay=0.05)]})
    with LoopbackServer(script) as server:
        async with acp_agent(paicli_home, workspace, *model_args(server)) as (conn, _, client, _w):
            sid = await new_session(conn, workspace)
            prompt = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("talk")]))
            while not client.of_kind("agent_message_chunk"):
                await asyncio.sleep(0.02)
            began = time.monotonic()
            await conn.cancel(session_id=sid)
            response = await asyncio.wait_for(prompt, 5)
            took = time.monotonic() - began
    assert response.stop_reason == "cancelled" and took < 5
    assert len(client.text()) < 400
    assert events(ledger_lines(paicli_home), "run_cancelled")


async def test_a_client_that_disconnects_mid_run_leaves_no_process(workspace, paicli_home):
    command = "sleep 60 & echo $! > sleeper.pid; wait"
    script = Script({"react": [Reply(tool_calls=[("execute_command", {"command": command})]), Reply(content="x")]})
    # Unsandboxed: inside the OS sandbox the pid written is one of its own
    # PID namespace (and nothing there outlives the command: test_sandbox.py).
    # This checks paicli's own clean-up of commands when the client leaves.
    with LoopbackServer(script) as server:
        async with acp_agent(paicli_home, workspace, *model_args(server), PAICLI_SANDBOX="off") as (
                conn, process, _c, _w):
            sid = await new_session(conn, workspace)
            prompt = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("sleep")]))
            pid_file = workspace / "sleeper.pid"
            while not (pid_file.exists() and pid_file.read_text().strip()):
                await asyncio.sleep(0.05)
            sleeper = int(pid_file.read_text())
            assert alive(sleeper)
            left_at = time.monotonic()
        took = time.monotonic() - left_at
    with pytest.raises(ConnectionError):
        await prompt
    assert process.returncode == 0 and took < 2.5  # inside the SDK client's grace, no SIGTERM needed
    assert gone_within([sleeper, process.pid], 3)
    outcome = events(ledger_lines(paicli_home), "run_outcome")
    assert outcome and outcome[-1]["payload"]["status"] == "cancelled"


async def test_links_and_embedded_resources_reach_the_model(workspace, paicli_home):
    script = Script({"react": [Reply(content="seen")]})
    link = resource_link_block("notes.txt", (workspace / "notes.txt").as_uri())
    embedded = resource_block(embedded_text_resource("file:///buffer/unsaved.py", "print('unsaved')"))
    with LoopbackServer(script) as server:
        async with acp_agent(paicli_home, workspace, *model_args(server)) as (conn, _, _c, _w):
            sid = await new_session(conn, workspace)
            await conn.prompt(session_id=sid, prompt=[text_block("look at these"), link, embedded])
    message = script.requests[0].messages[-1]["content"]
    assert "alpha\nbeta" in message and "notes.txt" in message
    assert '<attached uri="file:///buffer/unsaved.py">\nprint(\'unsaved\')\n</attached>' in message


async def test_workspace_hooks_are_asked_about_once_and_run_after_trust(workspace, paicli_home):
    hook = workspace / ".paicli" / "hooks" / "mark.sh"
    hook.parent.mkdir(parents=True)
    hook.write_text("cat > hook-input.json\n")
    (workspace / ".paicli" / "config.toml").write_text(
        '[[hooks.UserPromptSubmit]]\ncommand = "bash .paicli/hooks/mark.sh"\n')
    script = Script({"react": [Reply(content="one"), Reply(content="two")]})
    client = RecordingClient(lambda title, options: "always" if "always" in options else options[0])
    with LoopbackServer(script) as server:
        async with acp_agent(paicli_home, workspace, *model_args(server), client=client) as (conn, _, _c, _w):
            sid = await new_session(conn, workspace)
            await conn.prompt(session_id=sid, prompt=[text_block("first")])
            await conn.prompt(session_id=sid, prompt=[text_block("second")])
    ((call_id, title, _),) = client.permissions
    assert (call_id, title) == ("hooks-trust", "Run this workspace's hooks?")
    assert json.loads((workspace / "hook-input.json").read_text())["prompt"] == "second"
    assert "hooks-trust.toml" in [p.name for p in paicli_home.rglob("*.toml")]
    assert [line["payload"]["source"] for line in events(ledger_lines(paicli_home), "hook_ran")] == ["workspace"] * 2


async def test_an_unknown_session_and_a_bad_mode_are_clear_errors(workspace, paicli_home):
    async with acp_agent(paicli_home, workspace, "--demo") as (conn, _, _c, _w):
        sid = await new_session(conn, workspace)
        with pytest.raises(RequestError) as bad_mode:
            await conn.set_session_mode(session_id=sid, mode_id="yolo")
        with pytest.raises(RequestError) as unknown:
            await conn.prompt(session_id="nope", prompt=[text_block("hi")])
        with pytest.raises(RequestError) as bad_cwd:
            await conn.new_session(cwd="relative/dir", mcp_servers=[])
    assert "unknown mode 'yolo'" in json.dumps(bad_mode.value.data)
    assert "no session 'nope'" in json.dumps(unknown.value.data)
    assert "not an absolute path" in json.dumps(bad_cwd.value.data)


async def test_load_session_replays_the_history_and_the_model_sees_the_earlier_turn(workspace, paicli_home):
    script = Script({"react": [Reply(tool_calls=[("read_file", {"path": "notes.txt"})]),
                               Reply(content="It says alpha."), Reply(content="Yes, alpha.")]})
    with LoopbackServer(script) as server:
        async with acp_agent(paicli_home, workspace, *model_args(server)) as (conn, _, _c, _w):
            sid = await new_session(conn, workspace)
            await conn.prompt(session_id=sid, prompt=[text_block("what is in notes.txt?")])
        assert script.requests[-1].messages[-1]["role"] == "tool"
        async with acp_agent(paicli_home, workspace, *model_args(server)) as (conn, _, client, _w):
            assert client.initialized.agent_capabilities.load_session
            other = workspace.parent / "elsewhere"
            other.mkdir()
            with pytest.raises(RequestError) as elsewhere:
                await conn.load_session(cwd=str(other), session_id=sid, mcp_servers=[])
            with pytest.raises(RequestError) as unknown:
                await conn.load_session(cwd=str(workspace), session_id="../../etc/passwd", mcp_servers=[])
            await conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[])
            replayed = list(client.updates)
            await conn.prompt(session_id=sid, prompt=[text_block("are you sure?")])
            with pytest.raises(RequestError) as again:
                await conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[])
    kinds = [u["sessionUpdate"] for u in replayed]
    assert kinds[:4] == ["user_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"]
    assert replayed[0]["content"]["text"] == "what is in notes.txt?"
    assert replayed[3]["content"]["text"] == "It says alpha."
    last = script.requests[-1].messages
    assert last[0]["role"] == "system" and sum(m["role"] == "system" for m in last) == 1
    assert "what is in notes.txt?" in json.dumps(last) and "It says alpha." in json.dumps(last)
    assert "are you sure?" in last[-1]["content"]
    assert f"not in {other}" in json.dumps(elsewhere.value.data)
    assert "no recorded session" in json.dumps(unknown.value.data)
    assert "already open" in json.dumps(again.value.data)
    lines = ledger_lines(paicli_home)  # one ledger, continued
    assert [line["seq"] for line in lines] == list(range(1, len(lines) + 1))
    assert len(events(lines, "session_started")) == 2
