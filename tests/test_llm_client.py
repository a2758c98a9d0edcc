"""The model client against the loopback server: requests, parsing, events."""

from __future__ import annotations

import hashlib
import json

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.events import EventBus, ModelDelta, ModelRequest, ModelResponse
from paicli_tui.records.ledger import Ledger
from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
from paicli_tui.llm.types import Delta, ModelResponseError, ModelStreamError, ToolCall, Usage

FAKE_KEY = "sk-FAKE-KEY-0123456789-must-never-leak"
TOOLS = [
    {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}},
    {"type": "function", "function": {"name": "list_dir", "parameters": {"type": "object"}}},
]


@pytest.fixture
def bus():
    bus = EventBus("sess-1")
    bus.events = []
    bus.subscribe(bus.events.append)
    return bus


@pytest.fixture
def client(server, bus):
    with ChatClient(base_url=server.base_url, model="test-model", api_key=FAKE_KEY, session_id="sess-1", bus=bus,
                    retry_base_delay=0.01, retry_max_delay=0.05) as made:
        yield made


def sse(*chunks: dict, done: bool = True) -> str:
    lines = [f"data: {json.dumps(c)}\n\n" for c in chunks]
    return "".join(lines) + ("data: [DONE]\n\n" if done else "")


def delta_chunk(delta: dict, finish: str | None = None) -> dict:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def test_stream_with_reasoning_and_content(client, script, server):
    script.add("react", Reply(reasoning="let me think", content="The answer is 42.", chunk_chars=5, usage=Usage(50, 9, 32)))
    seen: list[Delta] = []
    result = client.chat([{"role": "user", "content": "q"}], agent="react", on_delta=seen.append)
    assert result.content == "The answer is 42."
    assert result.reasoning == "let me think"
    assert result.finish_reason == "stop"
    assert result.usage == Usage(50, 9, 32) and result.usage_reported
    assert "".join(d.text for d in seen if d.kind == "content") == "The answer is 42."
    assert "".join(d.text for d in seen if d.kind == "reasoning") == "let me think"
    assert len(seen) == 4 + 3  # fragments of 5 characters


def test_request_body_and_headers(client, script, server):
    script.add("worker-1", Reply(content="a"), Reply(content="b"))
    client.chat([{"role": "user", "content": "x"}], agent="worker-1", tools=TOOLS)
    client.chat([{"role": "user", "content": "x"}], agent="worker-1", stream=False)
    streamed, plain = server.requests
    assert streamed.path == "/v1/chat/completions"
    assert streamed.body["model"] == "test-model"
    assert streamed.body["stream"] is True
    assert streamed.body["stream_options"] == {"include_usage": True}
    assert streamed.tools == ["read_file", "list_dir"]
    assert plain.body["stream"] is False and "stream_options" not in plain.body
    for request in (streamed, plain):
        assert request.headers["X-PaiCLI-Session"] == "sess-1"
        assert request.headers["X-PaiCLI-Agent"] == "worker-1"
        assert request.headers["Authorization"] == f"Bearer {FAKE_KEY}"


@pytest.mark.parametrize("tools", [None, []])
def test_no_tools_key_without_tools(client, script, server, tools):
    script.add("planner", Reply(content="plan"))
    client.chat([{"role": "user", "content": "x"}], agent="planner", tools=tools)
    assert "tools" not in server.requests[0].body
    assert server.requests[0].tools is None


def test_no_authorization_header_without_a_key(server, script):
    script.add("react", Reply(content="ok"))
    with ChatClient(base_url=server.base_url, model="m", session_id="s") as client:
        client.chat([], agent="react")
    assert "authorization" not in server.requests[0].headers


def test_three_interleaved_tool_calls(client, script):
    names = ["read_file", "list_dir", "grep"]
    chunks = [delta_chunk({"role": "assistant", "content": None})]
    chunks += [delta_chunk({"tool_calls": [{"index": i, "id": f"call_{name}", "type": "function",
                                           "function": {"name": name, "arguments": ""}}]}) for i, name in enumerate(names)]
    for part in ['{"pa', 'th": ', '"src/', 'a.py"}']:
        for i in (1, 2, 0):
            chunks.append(delta_chunk({"tool_calls": [{"index": i, "function": {"arguments": part}}]}))
    chunks.append(delta_chunk({}, "tool_calls"))
    script.add("react", Reply(body=sse(*chunks)))
    seen: list[Delta] = []
    result = client.chat([], agent="react", tools=TOOLS, on_delta=seen.append)
    assert result.tool_calls == tuple(ToolCall(f"call_{n}", n, '{"path": "src/a.py"}') for n in names)
    assert result.finish_reason == "tool_calls"
    assert result.assistant_message()["content"] == ""
    assert [d.tool for d in seen[:3]] == ["list_dir", "grep", "read_file"]


def test_tool_name_repeated_in_every_chunk(client, script):
    script.add("react", Reply(tool_calls=[("read_file", {"path": "a/b/c.txt"})], chunk_chars=3, repeat_tool_names=True))
    result = client.chat([], agent="react", tools=TOOLS)
    assert result.tool_calls == (ToolCall("call_0", "read_file", '{"path": "a/b/c.txt"}'),)


def test_ping_comments_between_chunks(client, script):
    script.add("react", Reply(content="pinged along", ping_comments=True, chunk_chars=2))
    assert client.chat([], agent="react").content == "pinged along"


def test_missing_usage(client, script):
    script.add("react", Reply(content="no usage here", usage=None))
    result = client.chat([], agent="react")
    assert result.content == "no usage here"
    assert result.usage_reported is False
    # Counted by paicli (characters here: no tokenizer probed) and marked so.
    assert result.usage.estimated and result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0


def test_empty_200_body(client, script, server):
    script.add("react", Reply(body=""))
    with pytest.raises(ModelResponseError) as caught:
        client.chat([], agent="react")
    assert str(caught.value) == f"empty response body from {server.base_url}"


def test_error_object_inside_the_stream(client, script):
    script.add("react", Reply(body=sse(delta_chunk({"content": "par"}), {"error": {"message": "upstream overloaded"}})))
    with pytest.raises(ModelStreamError, match="upstream overloaded"):
        client.chat([], agent="react")


def test_plain_json_answer_to_a_stream_request(client, script):
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "not streamed"}, "finish_reason": "stop"}]}
    script.add("react", Reply(body=json.dumps(body), headers={"Content-Type": "application/json"}))
    result = client.chat([], agent="react")
    assert result.content == "not streamed" and result.usage_reported is False


def test_non_streaming_reply(client, script):
    script.add("react", Reply(reasoning="hmm", tool_calls=[("list_dir", {"path": "."})], usage=Usage(10, 2, 0)))
    seen: list[Delta] = []
    result = client.chat([], agent="react", tools=TOOLS, stream=False, on_delta=seen.append)
    assert result.tool_calls == (ToolCall("call_0", "list_dir", '{"path": "."}'),)
    assert result.reasoning == "hmm" and result.content == ""
    assert result.usage == Usage(10, 2, 0)
    assert result.assistant_message()["content"] == ""
    assert [d.kind for d in seen] == ["reasoning", "tool_call"]


def test_unexecuted_markup_is_flagged(client, script, bus):
    script.add("react", Reply(content='Reading now.\n<tool_call>{"name": "read_file"}</tool_call>'))
    result = client.chat([], agent="react")
    assert result.unexecuted_markup == "<tool_call>"
    response = [e for e in bus.events if isinstance(e, ModelResponse)][0]
    assert response.unexecuted_markup == "<tool_call>"


def test_events_for_a_call(client, script, bus):
    script.add("task_3", Reply(content="abcdef", chunk_chars=3), Reply(tool_calls=[("grep", '{"p": 1}')], chunk_chars=4))
    system = {"role": "system", "content": "You are a worker."}
    messages = [system, {"role": "user", "content": "go"}]
    client.chat(messages, agent="task_3")
    messages += [{"role": "assistant", "content": "abcdef"}, {"role": "user", "content": "more"}]
    client.chat(messages, agent="task_3", tools=TOOLS)
    requests = [e for e in bus.events if isinstance(e, ModelRequest)]
    assert [r.actor for r in requests] == ["task_3", "task_3"]
    assert requests[0].call_id != requests[1].call_id
    assert requests[0].new_messages == tuple(messages[:2]) and requests[1].new_messages == tuple(messages[2:])
    assert requests[1].message_count == 4 and requests[1].tools == ("read_file", "list_dir")
    assert requests[0].system_sha256 == hashlib.sha256(b"You are a worker.").hexdigest() == requests[1].system_sha256
    deltas = [e for e in bus.events if isinstance(e, ModelDelta)]
    assert [(d.kind, d.text, d.tool) for d in deltas] == [
        ("content", "abc", ""), ("content", "def", ""), ("tool_call", '{"p"', "grep"), ("tool_call", ": 1}", "grep")]
    responses = [e for e in bus.events if isinstance(e, ModelResponse)]
    assert responses[0].content == "abcdef" and responses[0].finish_reason == "stop"
    assert responses[1].tool_calls == ({"id": "call_0", "name": "grep", "arguments": '{"p": 1}'},)
    assert (responses[1].prompt_tokens, responses[1].completion_tokens) == (12, 7)
    assert all(d.call_id == requests[0].call_id for d in deltas[:2])


def test_shorter_history_sends_all_messages_again(client, script, bus):
    script.add("react", Reply(content="1"), Reply(content="2"))
    client.chat([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}], agent="react")
    client.chat([{"role": "user", "content": "c"}], agent="react")
    second = [e for e in bus.events if isinstance(e, ModelRequest)][1]
    assert second.new_messages == ({"role": "user", "content": "c"},)


def test_key_never_reaches_events_or_the_ledger(server, script, tmp_path):
    bus = EventBus("sess-key")
    events = []
    bus.subscribe(events.append)
    ledger = Ledger(bus, tmp_path / "ledger.jsonl")
    script.add("react", Reply(content="fine"), Reply(status=400, body=json.dumps({"error": {"message": f"bad key {FAKE_KEY}"}})))
    with ChatClient(base_url=server.base_url, model="m", api_key=FAKE_KEY, session_id="sess-key", bus=bus) as client:
        client.chat([{"role": "user", "content": "hi"}], agent="react")
        with pytest.raises(Exception) as caught:
            client.chat([], agent="react")
    ledger.close()
    assert FAKE_KEY not in str(caught.value) and "[REDACTED]" in str(caught.value)
    assert len(events) > 3
    assert all(FAKE_KEY not in json.dumps(e.payload(), default=str) for e in events)
    assert FAKE_KEY not in (tmp_path / "ledger.jsonl").read_text()


def test_from_settings_uses_the_key_variable(server, script, monkeypatch):
    monkeypatch.setenv("MY_TEST_KEY", FAKE_KEY)
    script.add("react", Reply(content="ok"))
    settings = Settings(provider="custom", base_url=server.base_url + "/", model="local-model", api_key_env="MY_TEST_KEY", max_retries=2)
    with ChatClient.from_settings(settings, session_id="sx") as client:
        assert (client.model, client.model_label, client.max_retries) == ("local-model", "local-model", 2)
        client.chat([], agent="react")
    request = server.requests[0]
    assert request.headers["Authorization"] == f"Bearer {FAKE_KEY}" and request.body["model"] == "local-model"


def test_from_settings_demo_is_labelled():
    with ChatClient.from_settings(Settings(provider="demo"), session_id="sx") as client:
        assert client.model_label == "demo (DEMO)"
        assert "DEMO" not in client.model


def test_scripted_transport_uses_the_same_client_path():
    script = Script({"reviewer": [Reply(content="approved", chunk_chars=2)]})
    with ChatClient(base_url="http://scripted.invalid/v1", model="m", transport=ScriptedTransport(script)) as client:
        result = client.chat([], agent="reviewer-step_2")
    assert result.content == "approved"
    assert script.requests[0].agent == "reviewer-step_2"
