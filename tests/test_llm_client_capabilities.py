"""The client's optional request fields (issue 16): ``response_format`` and
``max_tokens`` reach the body, and a server that refuses one with HTTP 400
gets the call again at once without it, once per session. Real sockets: the
loopback server records every request body."""

from __future__ import annotations

import json

import pytest

from paicli_tui.events import CapabilityDropped, EventBus, ModelRequest, ModelRetry
from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.scripted import Reply, Script
from paicli_tui.llm.structured_output import response_format
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


@pytest.mark.parametrize("kind, expected", [("json_object", {"type": "json_object"}), ("none", None)])
def test_the_capability_decides_the_field(kind, expected):
    assert response_format(kind, "t", SCHEMA) == expected


@pytest.mark.parametrize("message", [
    "'response_format.type' must be 'json_object' or 'text'",  # DeepSeek's wording
    "json_schema is not supported by this model",
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
    assert (dropped.actor, dropped.field) == ("planner", "response_format") and message.split()[0] in dropped.reason
    assert not [e for e in seen if isinstance(e, ModelRetry)], "the resend is not a retry after a failure"
    requests = [e for e in seen if isinstance(e, ModelRequest)]
    assert [(e.response_format, e.max_tokens) for e in requests] == [("json_schema", 50), ("", 50)]


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
