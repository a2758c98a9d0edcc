"""The scripted model, its in-process transport and the loopback server."""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest

from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.offline.scripted import RecordedRequest, Reply, Script, ScriptedTransport, json_body, sse_events
from paicli_tui.llm.types import ModelHTTPError, ModelStreamError, Usage
from tests.support.server import LoopbackServer


def request_for(agent: str) -> RecordedRequest:
    return RecordedRequest("/v1/chat/completions", {"X-PaiCLI-Agent": agent}, {"messages": []})


@pytest.mark.parametrize(
    "agent, queue",
    [("task_3", "task"), ("worker-2", "worker"), ("reviewer-step_2", "reviewer"), ("planner", "planner"), ("react", "*")],
)
def test_script_finds_the_queue_by_agent_name(agent, queue):
    script = Script({name: [Reply(content=name)] for name in ["task", "worker", "reviewer", "planner", "*"]})
    assert script(request_for(agent)).content == queue


def test_exact_name_wins_over_prefix():
    script = Script({"task_1": [Reply(content="exact")], "task": [Reply(content="prefix")]})
    assert script(request_for("task_1")).content == "exact"
    assert script(request_for("task_2")).content == "prefix"


def test_exhausted_queue_uses_default_or_explains():
    script = Script({"react": [Reply(content="one")]})
    script(request_for("react"))
    reply = script(request_for("react"))
    assert reply.status == 500 and "script exhausted for react" in reply.body
    with_default = Script({}, default=lambda request: Reply(content=f"default for {request.agent}"))
    assert with_default(request_for("x")).content == "default for x"
    assert [r.agent for r in script.requests] == ["react", "react"]


def test_recorded_request_properties():
    request = RecordedRequest("/v1/chat/completions", {"x-paicli-agent": "a"},
                              {"messages": [{"role": "user"}], "tools": [{"type": "function", "function": {"name": "t"}}]})
    assert (request.agent, request.tools, request.messages) == ("a", ["t"], [{"role": "user"}])


def test_sse_events_shape():
    events = list(sse_events(Reply(content="abcdefghij", chunk_chars=4, ping_comments=True, usage=Usage(3, 4, 1)), "m"))
    assert events[-1] == b"data: [DONE]\n\n"
    assert all(e.endswith(b"\n\n") for e in events)
    assert sum(b": ping" in e for e in events) == 4  # 3 content pieces + finish
    usage = json.loads(events[-2][6:])
    assert usage["choices"] == [] and usage["usage"]["prompt_tokens_details"] == {"cached_tokens": 1}


def test_json_body_shape():
    body = json.loads(json_body(Reply(tool_calls=[("t", {"a": 1})], usage=None)))
    message = body["choices"][0]["message"]
    assert message["content"] is None and message["tool_calls"][0]["function"]["arguments"] == '{"a": 1}'
    assert body["choices"][0]["finish_reason"] == "tool_calls" and "usage" not in body


def test_scripted_transport_error_status_and_drop():
    script = Script({"*": [Reply(status=404, body='{"error": {"message": "no such model"}}'),
                           Reply(content="x" * 30, chunk_chars=3, drop_after_chunks=3)]})
    with ChatClient(base_url="http://scripted.invalid/v1", model="m", transport=ScriptedTransport(script)) as client:
        with pytest.raises(ModelHTTPError, match="no such model"):
            client.chat([], agent="a")
        with pytest.raises(ModelStreamError, match="ended early"):
            client.chat([], agent="a")


def test_loopback_records_requests_of_a_plain_responder():
    with LoopbackServer(lambda request: Reply(content=f"hi {request.agent}")) as server:
        with ChatClient(base_url=server.base_url, model="m") as client:
            assert client.chat([{"role": "user", "content": "q"}], agent="solo").content == "hi solo"
        assert [(r.agent, r.messages) for r in server.requests] == [("solo", [{"role": "user", "content": "q"}])]


def test_loopback_rejects_bad_requests_and_survives_a_broken_responder():
    def broken(request: RecordedRequest) -> Reply:
        raise RuntimeError("oops")

    with LoopbackServer(broken) as server:
        root = server.base_url
        with httpx.Client() as http:
            assert http.post(root + "/completions", json={}).status_code == 404
            assert http.post(root + "/chat/completions", content=b"{not json").status_code == 400
            failed = http.post(root + "/chat/completions", json={"messages": []})
            assert failed.status_code == 500 and "responder failed" in failed.json()["error"]["message"]
            assert http.get(root + "/models").json()["data"][0]["id"] == "scripted"


def test_loopback_drop_really_hangs_up():
    script = Script({"*": [Reply(content="y" * 40, chunk_chars=4, drop_after_chunks=2)]})
    with LoopbackServer(script) as server, httpx.Client() as http:
        with http.stream("POST", server.base_url + "/chat/completions", json={"stream": True}) as response:
            with pytest.raises(httpx.RemoteProtocolError):
                for _ in response.iter_bytes():
                    pass


@pytest.mark.timeout(20)
def test_loopback_closes_fast_with_busy_and_idle_connections():
    script = Script({"slow": [Reply(content="z", delay=30.0)], "*": [Reply(content="quick")]})
    server = LoopbackServer(script)
    client = ChatClient(base_url=server.base_url, model="m", max_retries=0)
    assert client.chat([], agent="idle").content == "quick"  # leaves a keep-alive connection open
    errors: list[Exception] = []
    caller = threading.Thread(target=lambda: _capture(errors, lambda: client.chat([], agent="slow")), daemon=True)
    caller.start()
    time.sleep(0.2)
    started = time.monotonic()
    server.close()
    closed_in = time.monotonic() - started
    caller.join(timeout=10)
    client.close()
    print(f"loopback close took {closed_in * 1000:.0f} ms")
    assert closed_in < 5.0
    assert not caller.is_alive() and errors  # the waiting call was hung up on, not left hanging


def _capture(errors: list[Exception], call) -> None:
    try:
        call()
    except Exception as exc:  # noqa: BLE001
        errors.append(exc)
