"""The client's optional request fields (issue 16): ``response_format`` and
``max_tokens`` reach the body, and a server that refuses one with HTTP 400
gets the call again at once without it (or in a weaker form), once per
session; a 5xx naming ``response_format`` is such a refusal too. Real sockets: the
loopback server records every request body."""

from __future__ import annotations

import json

import pytest

from paicli_tui.events import CapabilityDropped, EventBus, ModelRequest, ModelRetry
from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.llm.structured_output import at_most, kind_of, response_format, weaker
from paicli_tui.llm.types import ModelHTTPError
from tests.support.server import LoopbackServer

pytestmark = pytest.mark.timeout(30)

SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": False}
FORMAT = response_format("json_schema", "t", SCHEMA)
SAID = [{"role": "user", "content": "hi"}]


def refusing(field: str, message: str):
    """A server that answers 400 ``message`` to every body carrying ``field``."""

    def respond(request) -> Reply:
        if field in request.body:
            return Reply(status=400, body=json.dumps({"error": {"message": message, "type": "invalid_request_error"}}))
        return Reply(content='{"ok": true}')

    return Script(default=respond)


def client_for(server, bus=None) -> ChatClient:
    return ChatClient(base_url=server.base_url, model="m", bus=bus, max_retries=3, retry_base_delay=0)


def test_response_format_and_max_tokens_go_into_the_body_only_when_given():
    script = Script(default=lambda request: Reply(content='{"ok": true}'))
    with LoopbackServer(script) as server, client_for(server) as client:
        client.chat(SAID, agent="a", response_format=FORMAT, max_tokens=123)
        client.chat(SAID, agent="a")
    given, plain = (r.body for r in script.requests)
    assert given["response_format"] == {"type": "json_schema", "json_schema": {"name": "t", "strict": True, "schema": SCHEMA}}
    assert given["max_tokens"] == 123
    assert "response_format" not in plain and "max_tokens" not in plain


@pytest.mark.parametrize("message", [
    "Unsupported parameter: response_format",
    "response_format is not supported",
    "Unsupported parameter: extra inputs are not permitted",
])
def test_a_400_refusing_response_format_drops_it_once_and_for_the_session(message):
    bus = EventBus("s")
    seen: list = []
    bus.subscribe(seen.append)
    script = refusing("response_format", message)
    with LoopbackServer(script) as server, client_for(server, bus) as client:
        first = client.chat(SAID, agent="planner", response_format=FORMAT, max_tokens=50)
        second = client.chat(SAID, agent="reviewer", response_format=FORMAT, max_tokens=50)
    assert first.content == second.content == '{"ok": true}'
    refused, retried, later = (r.body for r in script.requests)
    assert "response_format" in refused
    assert "response_format" not in retried and retried["max_tokens"] == 50 and retried["messages"] == refused["messages"]
    assert "response_format" not in later, "not sent again this session"
    [dropped] = [e for e in seen if isinstance(e, CapabilityDropped)]
    assert (dropped.actor, dropped.field, dropped.fallback) == ("planner", "response_format", "")
    assert message.split()[0] in dropped.reason
    assert not [e for e in seen if isinstance(e, ModelRetry)], "the resend is not a retry after a failure"
    requests = [e for e in seen if isinstance(e, ModelRequest)]
    assert [(e.response_format, e.max_tokens) for e in requests] == [("json_schema", 50), ("", 50)]


def llama_cpp_python(request) -> Reply:
    """What llama-cpp-python 0.3.36's server answers (measured on the real
    one, tests/e2e/test_real_llama_server.py): the json_schema type is a 500
    from its request validation; json_object, with or without a schema, is
    served."""
    if (request.body.get("response_format") or {}).get("type") == "json_schema":
        message = ("1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
                   "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}")
        return Reply(status=500, body=json.dumps({"error": {"message": message, "type": "internal_server_error"}}))
    return Reply(content='{"ok": true}')


def test_a_500_refusing_the_json_schema_form_steps_down_to_the_schema_beside_json_object():
    bus = EventBus("s")
    seen: list = []
    bus.subscribe(seen.append)
    script = Script(default=llama_cpp_python)
    with LoopbackServer(script) as server, client_for(server, bus) as client:
        first = client.chat(SAID, agent="planner", response_format=FORMAT)
        second = client.chat(SAID, agent="reviewer", response_format=FORMAT)
        assert client.format_ceiling == "json_object_schema" and client.dropped == set()
    assert first.content == second.content == '{"ok": true}'
    sent = [r.body["response_format"] for r in script.requests]
    assert sent == [FORMAT, {"type": "json_object", "schema": SCHEMA}, {"type": "json_object", "schema": SCHEMA}]
    assert not [e for e in seen if isinstance(e, ModelRetry)], "a refusal is not retried"
    [dropped] = [e for e in seen if isinstance(e, CapabilityDropped)]
    assert (dropped.field, dropped.fallback) == ("response_format", "json_object_schema") and "HTTP 500" in dropped.reason
    requests = [e.response_format for e in seen if isinstance(e, ModelRequest)]
    assert requests == ["json_schema", "json_object_schema"], "the ledger tells the two forms apart"


def test_each_refused_form_steps_one_rung_down_until_one_is_taken():
    def respond(request) -> Reply:
        sent = request.body.get("response_format") or {}
        if sent.get("type") == "json_schema":
            return Reply(status=400, body=json.dumps({"error": {"message": "'response_format.type' must be 'json_object' or 'text'"}}))
        if "schema" in sent:
            return Reply(status=400, body=json.dumps({"error": {"message": "response_format.schema: extra inputs are not permitted"}}))
        return Reply(content='{"ok": true}')

    bus = EventBus("s")
    seen: list = []
    bus.subscribe(seen.append)
    script = Script(default=respond)
    with LoopbackServer(script) as server, client_for(server, bus) as client:
        client.chat(SAID, agent="a", response_format=FORMAT)
        client.chat(SAID, agent="a", response_format=FORMAT)
    assert [kind_of(r.body.get("response_format")) for r in script.requests] == [
        "json_schema", "json_object_schema", "json_object", "json_object"]
    assert [e.fallback for e in seen if isinstance(e, CapabilityDropped)] == ["json_object_schema", "json_object"]


def test_a_500_that_does_not_name_response_format_is_retried_and_drops_nothing():
    replies = iter([Reply(status=500, body=json.dumps({"error": {"message": "out of memory"}})), Reply(content='{"ok": true}')])
    script = Script(default=lambda request: next(replies))
    with LoopbackServer(script) as server, client_for(server) as client:
        result = client.chat(SAID, agent="a", response_format=FORMAT)
        assert client.format_ceiling == "json_schema" and client.dropped == set()
    assert result.content == '{"ok": true}'
    assert [r.body["response_format"] for r in script.requests] == [FORMAT, FORMAT]


def test_a_500_naming_response_format_when_none_was_sent_is_retried_as_any_500():
    replies = iter([Reply(status=500, body=json.dumps({"error": {"message": "response_format handler crashed"}})),
                    Reply(content="fine")])
    script = Script(default=lambda request: next(replies))
    with LoopbackServer(script) as server, client_for(server) as client:
        assert client.chat(SAID, agent="a").content == "fine"
    assert len(script.requests) == 2


@pytest.mark.parametrize("kind, field", [
    ("json_schema", FORMAT),
    ("json_object_schema", {"type": "json_object", "schema": SCHEMA}),
    ("json_object", {"type": "json_object"}),
    ("none", None),
])
def test_each_form_is_one_rung_and_steps_down_to_the_next(kind, field):
    assert response_format(kind, "t", SCHEMA) == field and kind_of(field) == kind
    below = {"json_schema": "json_object_schema", "json_object_schema": "json_object"}.get(kind, "none")
    assert kind_of(weaker(field)) == below
    assert at_most(FORMAT, kind) == field, "a ceiling rebuilds the strongest form as the allowed one"


def test_a_server_asking_for_max_completion_tokens_gets_the_limit_under_that_name():
    message = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
    script = refusing("max_tokens", message)
    with LoopbackServer(script) as server, client_for(server) as client:
        client.chat(SAID, agent="a", max_tokens=77)
        client.chat(SAID, agent="a", max_tokens=88)
    refused, retried, later = (r.body for r in script.requests)
    assert refused["max_tokens"] == 77
    assert retried.get("max_completion_tokens") == 77 and "max_tokens" not in retried
    assert later.get("max_completion_tokens") == 88 and "max_tokens" not in later


def test_a_400_that_names_no_optional_field_is_an_error_and_drops_nothing():
    script = Script(default=lambda request: Reply(status=400, body=json.dumps({"error": {"message": "model not found"}})))
    with LoopbackServer(script) as server, client_for(server) as client:
        with pytest.raises(ModelHTTPError, match="model not found"):
            client.chat(SAID, agent="a", response_format=FORMAT)
        assert client.dropped == set()
    assert len(script.requests) == 1


def test_a_400_naming_response_format_when_none_was_sent_is_an_error():
    script = refusing("messages", "response_format: unknown field")
    with LoopbackServer(script) as server, client_for(server) as client:
        with pytest.raises(ModelHTTPError):
            client.chat(SAID, agent="a")
    assert len(script.requests) == 1
