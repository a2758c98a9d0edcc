"""Tool calls written as text (issue 16 item 5): with ``tool_calls_in_content``
a Hermes/Qwen ``<tool_call>`` block runs as a real tool call through the real
agent loop, client and registry, and the ledger says it was recovered; off
(the default) or malformed, the markup is only flagged (P-1.6)."""

from __future__ import annotations

import json
import threading

import pytest

from paicli_tui.agent.loop import Agent
from paicli_tui.config.settings import Settings
from paicli_tui.events import EventBus, ModelResponse, ToolCallFinished
from paicli_tui.records.ledger import Ledger
from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.markup import recover_tool_calls
from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
from paicli_tui.llm.types import ChatResult, ToolCall
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.agent.registry import ToolRegistry

pytestmark = pytest.mark.timeout(30)

WRITE = '<tool_call>\n{"name": "write_file", "arguments": {"path": "a.txt", "content": "hi"}}\n</tool_call>'


def run_agent(tmp_path, first_reply: str, *, on: bool, stream: bool = True):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    settings = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0,
                        tool_calls_in_content=on)
    bus = EventBus("s")
    events: list = []
    bus.subscribe(events.append)
    ledger = Ledger(bus, tmp_path / "ledger.jsonl")
    script = Script({"react": [Reply(content=first_reply, chunk_chars=5), Reply(content="All done.")]})
    client = ChatClient.from_settings(settings, session_id="s", bus=bus, transport=ScriptedTransport(script))
    agent = Agent("react", client=client, system_prompt="sys", registry=ToolRegistry(workspace, settings), bus=bus,
                  approver=AutoApprover())
    outcome = agent.run_turn("write a.txt", cancel=threading.Event())
    ledger.close()
    lines = [json.loads(line) for line in (tmp_path / "ledger.jsonl").read_text().splitlines()]
    responses = [line["payload"] for line in lines if line["event"] == "model_response"]
    return workspace, outcome, events, responses, script


def test_on_a_tool_call_block_runs_the_tool_and_is_recorded_as_recovered(tmp_path):
    workspace, outcome, events, responses, script = run_agent(tmp_path, f"I'll write it.\n{WRITE}", on=True)
    assert (workspace / "a.txt").read_text() == "hi"
    assert outcome.status == "final" and outcome.text == "All done."
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert (finished.tool, finished.ok) == ("write_file", True)
    first = responses[0]
    assert first["recovered_tool_calls"] == 1 and first["unexecuted_markup"] is None
    assert first["content"] == "I'll write it."
    assert [c["name"] for c in first["tool_calls"]] == ["write_file"]
    # The history the model sees next holds the call and its result.
    second = script.requests[1].messages
    assert second[2]["tool_calls"][0]["function"]["name"] == "write_file"
    assert second[3]["role"] == "tool" and second[3]["tool_call_id"] == second[2]["tool_calls"][0]["id"]


def test_off_the_block_is_only_flagged_and_nothing_runs(tmp_path):
    workspace, outcome, events, responses, _ = run_agent(tmp_path, WRITE, on=False)
    assert not (workspace / "a.txt").exists()
    assert not [e for e in events if isinstance(e, ToolCallFinished)]
    assert responses[0]["unexecuted_markup"] == "<tool_call>" and responses[0]["recovered_tool_calls"] == 0


def test_malformed_json_in_a_block_converts_nothing_and_stays_flagged(tmp_path):
    broken = WRITE + '\n<tool_call>{"name": "read_file", "arguments": {"path": }</tool_call>'
    workspace, _, events, responses, _ = run_agent(tmp_path, broken, on=True)
    assert not (workspace / "a.txt").exists()
    assert responses[0]["unexecuted_markup"] == "<tool_call>" and responses[0]["recovered_tool_calls"] == 0


def test_an_unknown_tool_from_text_is_refused_by_the_registry_like_any_other(tmp_path):
    text = '<tool_call>{"name": "format_disk", "arguments": {}}</tool_call>'
    _, _, events, responses, _ = run_agent(tmp_path, text, on=True)
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert (finished.tool, finished.ok) == ("format_disk", False)
    assert responses[0]["recovered_tool_calls"] == 1


def test_several_blocks_become_several_calls_in_order_and_quoted_ones_stay_text():
    text = (
        'First <tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call> then'
        '<tool_call>{"arguments": {}, "name": "b"}</tool_call>\n'
        'Example: `<tool_call>{"name": "c", "arguments": {}}</tool_call>`'
    )
    result = recover_tool_calls(ChatResult(text))
    assert result.tool_calls == (ToolCall("text_call_0", "a", '{"x": 1}'), ToolCall("text_call_1", "b", "{}"))
    assert result.recovered_tool_calls == 2
    assert result.content.startswith("First  then") and "`<tool_call>" in result.content


def test_a_reply_with_real_tool_calls_is_left_as_it_is():
    real = ChatResult(WRITE, tool_calls=(ToolCall("c1", "read_file", "{}"),))
    assert recover_tool_calls(real) is real
