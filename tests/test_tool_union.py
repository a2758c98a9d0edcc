"""Tool calls through a JSON-Schema union, for servers that drop ``tools``:
every reply is one tool call or a final answer by construction, and is
read back into a real tool call the agent runs."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.config.settings import Settings
from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.llm.tool_union import UnreadableUnionReply, as_plain_transcript, read_union_reply, union_schema
from paicli_tui.llm.types import ChatResult
from tests.support.recorder import lines_of, record


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    return ToolRegistry(tmp_path_factory.mktemp("ws"), Settings(provider="llamacpp")).schemas()


def test_the_union_is_a_valid_schema_of_every_tool_and_a_final_answer(tools):
    schema = union_schema(tools)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    assert validator.is_valid({"tool": "read_file", "arguments": {"path": "a.py"}})
    assert validator.is_valid({"final": "done"})
    assert not validator.is_valid({"tool": "no_such_tool", "arguments": {}})
    assert not validator.is_valid({"final": "two\nlines"})


def test_the_union_converts_to_a_grammar_without_falling_back(tools):
    llama_grammar = pytest.importorskip("llama_cpp.llama_grammar", reason="llama-cpp-python is not installed")
    grammar = llama_grammar.json_schema_to_gbnf(json.dumps(union_schema(tools)))
    assert '\\"read_file\\"' in grammar and '\\"write_file\\"' in grammar and '\\"final\\"' in grammar


def result(content: str, finish: str = "stop") -> ChatResult:
    return ChatResult(content=content, finish_reason=finish)


def test_a_union_reply_becomes_a_real_tool_call(tools):
    raw = '{"tool": "write_file", "arguments": {"path": "a.txt", "content": "line one\nline two"}}'  # a raw newline
    read = read_union_reply(result(raw), tools, "abc")
    [call] = read.tool_calls
    assert (call.id, call.name, read.content, read.finish_reason) == ("call_abc", "write_file", "", "tool_calls")
    assert json.loads(call.arguments) == {"path": "a.txt", "content": "line one\nline two"}  # strict JSON now
    assert read.constrained_tool_calls == 1
    final = read_union_reply(result('{"final": "all done"}'), tools, "x")
    assert final.content == "all done" and final.tool_calls == ()


@pytest.mark.parametrize("content, finish, says", [
    ('{"tool": "read_file", "argu', "length", "cut at the output limit"),
    ("Sure! I will read it.", "stop", "not one JSON object"),
    ('{"tool": "rm_rf", "arguments": {}}', "stop", "offered tool"),
])
def test_an_unreadable_union_reply_says_why(tools, content, finish, says):
    with pytest.raises(UnreadableUnionReply, match=says) as caught:
        read_union_reply(result(content, finish), tools, "x")
    assert caught.value.reply == content


def test_the_wire_transcript_is_plain_text_and_names_the_tools(tools):
    history = [
        {"role": "system", "content": "You are paicli."},
        {"role": "user", "content": "read a.py"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "print(1)"},
    ]
    wire = as_plain_transcript(history, tools)
    assert wire[0]["content"].startswith("You are paicli.\n\nReply with exactly one JSON object")
    assert "- read_file(path" in wire[0]["content"]
    assert wire[2] == {"role": "assistant", "content": '{"tool": "read_file", "arguments": {"path": "a.py"}}'}
    assert wire[3] == {"role": "user", "content": "Result of read_file:\nprint(1)"}
    assert history[2]["tool_calls"], "the agent's own history is untouched"


def test_a_react_run_in_union_mode_writes_the_file(tmp_path):
    script = Script({"react": [
        Reply(content="I will write it."),  # unreadable: repaired once with the exact error
        Reply(content='{"tool": "write_file", "arguments": {"path": "notes.txt", "content": "hello\\n"}}'),
        Reply(content='{"final": "wrote notes.txt"}'),
    ]})
    path = record(tmp_path, "react", "write hello to notes.txt", script, tool_mode="union")
    assert (tmp_path / "ws" / "notes.txt").read_text() == "hello\n"
    first, repair, third = script.requests
    for request in script.requests:
        assert "tools" not in request.body and "anyOf" in request.body["response_format"]["schema"]
    assert "Your reply was rejected: the reply is not one JSON object" in repair.messages[-1]["content"]
    assert third.messages[-1] == {"role": "user", "content": "Result of write_file:\n" + third.messages[-1]["content"].split("\n", 1)[1]}
    lines = lines_of(path)
    responses = [line["payload"] for line in lines if line["event"] == "model_response"]
    assert [r["constrained_tool_calls"] for r in responses] == [0, 1, 0]
    outcome = [line["payload"] for line in lines if line["event"] == "run_outcome"][-1]
    assert outcome["ok"] is True and "wrote notes.txt" in outcome["text"]


def test_a_team_workers_final_answer_is_its_report_object(tmp_path):
    from tests.support.recorder import approve, task_plan

    report = {"status": "completed", "result": "looked around", "reason": None}
    script = Script({"planner": [task_plan(("look around", []))],
                     "worker": [Reply(content=json.dumps({"final": report}))],
                     "reviewer": [approve()]})
    path = record(tmp_path, "team", "look around", script, tool_mode="union")
    worker_request = next(r for r in script.requests if r.agent.startswith("worker"))
    final = worker_request.body["response_format"]["schema"]["anyOf"][-1]["properties"]["final"]
    assert final["anyOf"][0]["properties"]["status"] == {"const": "completed"}, "the report's grammar form"
    lines = lines_of(path)
    reports = [line["payload"] for line in lines if line["event"] == "worker_report"]
    assert [r["status"] for r in reports] == ["completed"]
    assert not [line for line in lines if line["event"] == "repair_requested"]


def test_tokens_of_a_union_request_without_usage_are_counted_as_sent(tools):
    """In union mode the tools reach the server as a line each in the system
    message and a grammar: the count is of that, not of schemas the prompt
    never held."""
    import threading

    from paicli_tui.llm.client import ChatClient
    from paicli_tui.llm.offline.scripted import ScriptedTransport
    from paicli_tui.llm.usage_estimate import PER_MESSAGE, PER_REPLY, by_characters

    script = Script({"react": [Reply(content='{"final": "done"}', usage=None)]})
    settings = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0,
                        tool_mode="union", structured_output="json_object_schema")
    asked = [{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": "say done"}]
    with ChatClient.from_settings(settings, session_id="s", transport=ScriptedTransport(script)) as client:
        result = client.chat(asked, agent="react", tools=tools, cancel=threading.Event())
    wire = script.requests[0].messages
    sent = by_characters("\n".join(m["content"] for m in wire)) + PER_MESSAGE * len(wire) + PER_REPLY
    assert result.usage.estimated and result.usage.prompt_tokens == sent
    assert result.usage.prompt_tokens < by_characters(json.dumps(tools)), "the schemas are not in the prompt"
