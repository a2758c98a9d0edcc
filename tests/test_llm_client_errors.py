"""P-1.3 against the loopback server: retries, typed errors, timeouts and
cancellation."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from paicli_tui.events import EventBus, ModelCallCancelled, ModelError as ModelErrorEvent, ModelRetry
from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.offline.scripted import Reply
from paicli_tui.llm.types import (
    ModelAuthError,
    ModelCancelled,
    ModelConnectionError,
    ModelHTTPError,
    ModelResponseError,
    ModelStreamError,
    ModelTimeoutError,
)

FAKE_KEY = "sk-FAKE-KEY-0123456789-must-never-leak"


@pytest.fixture
def bus():
    bus = EventBus("sess-err")
    bus.events = []
    bus.subscribe(bus.events.append)
    return bus


def make_client(server, bus=None, **options) -> ChatClient:
    settings = dict(api_key=FAKE_KEY, session_id="sess-err", retry_base_delay=0.01, retry_max_delay=0.05)
    settings.update(options)
    return ChatClient(base_url=server.base_url, model="m", bus=bus, **settings)


def test_mid_stream_disconnect_is_an_error_of_that_call(server, script, bus):
    script.add("react", Reply(content="x" * 80, chunk_chars=4, drop_after_chunks=5), Reply(content="next call fine"))
    seen = []
    with make_client(server, bus) as client:
        with pytest.raises(ModelStreamError) as caught:
            client.chat([], agent="react", on_delta=seen.append)
        assert str(caught.value).startswith(f"stream from {server.base_url} ended early")
        assert len(seen) == 4  # the role chunk carries no text
        assert len(server.requests) == 1  # not retried: the caller already saw deltas
        assert client.chat([], agent="react").content == "next call fine"
    assert [e.kind for e in bus.events if isinstance(e, ModelErrorEvent)] == ["stream"]


def test_429_with_retry_after_then_success(server, script, bus):
    script.add("react", Reply(status=429, headers={"Retry-After": "0.02"}, body='{"error": {"message": "slow down"}}'), Reply(content="ok"))
    with make_client(server, bus, retry_max_delay=5.0) as client:
        assert client.chat([], agent="react").content == "ok"
    assert len(server.requests) == 2
    retries = [e for e in bus.events if isinstance(e, ModelRetry)]
    assert [(r.attempt, r.delay_s) for r in retries] == [(1, 0.02)]  # the server's delay, not the backoff
    assert "429" in retries[0].reason and "slow down" in retries[0].reason
    assert all(r.headers["X-PaiCLI-Agent"] == "react" for r in server.requests)


def test_500_twice_then_success(server, script, bus):
    script.add("planner", Reply(status=500), Reply(status=502, body="<html>bad gateway</html>"), Reply(content="plan"))
    with make_client(server, bus) as client:
        assert client.chat([], agent="planner").content == "plan"
    assert len(server.requests) == 3
    assert [e.attempt for e in bus.events if isinstance(e, ModelRetry)] == [1, 2]
    assert not [e for e in bus.events if isinstance(e, ModelErrorEvent)]


def test_retries_are_bounded(server, script, bus):
    script.add("react", *[Reply(status=503)] * 5)
    with make_client(server, bus, max_retries=2) as client:
        with pytest.raises(ModelHTTPError) as caught:
            client.chat([], agent="react")
    assert caught.value.status == 503 and "gave up after 3 attempts" in str(caught.value)
    assert len(server.requests) == 3


@pytest.mark.parametrize("status", [401, 403])
def test_auth_failure_is_not_retried_and_hides_the_key(server, script, bus, status):
    script.add("react", Reply(status=status, body=json.dumps({"error": {"message": f"Incorrect API key provided: {FAKE_KEY}"}})))
    with make_client(server, bus) as client:
        with pytest.raises(ModelAuthError) as caught:
            client.chat([], agent="react")
    # The server's reason is kept (P-1.3: say why), with the key in it redacted.
    said = "API key rejected by {} (401)" if status == 401 else "{} refused the request (403)"
    assert str(caught.value) == said.format(server.base_url) + ": Incorrect API key provided: [REDACTED]"
    assert len(server.requests) == 1
    errors = [e for e in bus.events if isinstance(e, ModelErrorEvent)]
    assert [(e.kind, e.message) for e in errors] == [("auth", str(caught.value))]


def test_auth_failure_without_a_key_names_the_variable(server, script):
    script.add("react", Reply(status=401))
    with make_client(server, api_key=None) as client:
        client.api_key_env = "OPENAI_API_KEY"
        with pytest.raises(ModelAuthError, match="none was sent: .*; set OPENAI_API_KEY$"):
            client.chat([], agent="react")


@pytest.mark.parametrize("key", [None, "sk-some-key-0123456789"])
def test_a_403_says_what_the_server_said_not_that_a_key_is_needed(server, script, key):
    script.add("react", Reply(status=403, body=json.dumps({"error": {"message": "region blocked"}})))
    with make_client(server, api_key=key) as client:
        client.api_key_env = "OPENAI_API_KEY"
        with pytest.raises(ModelAuthError) as caught:
            client.chat([], agent="react")
    assert str(caught.value) == f"{server.base_url} refused the request (403): region blocked"


def test_other_4xx_carries_status_and_server_message(server, script):
    script.add("react", Reply(status=404, body=json.dumps({"error": {"message": "The model `nope` does not exist"}})))
    with make_client(server) as client:
        with pytest.raises(ModelHTTPError) as caught:
            client.chat([], agent="react")
    assert caught.value.status == 404
    assert str(caught.value) == f"{server.base_url} returned HTTP 404: The model `nope` does not exist"
    assert len(server.requests) == 1


def test_slow_chunk_hits_the_read_timeout(server, script):
    script.add("react", Reply(content="a" * 40, chunk_chars=8, chunk_delay=3.0))
    with make_client(server, read_timeout=0.3) as client:
        with pytest.raises(ModelTimeoutError, match="stalled: no data for 0.3 s"):
            client.chat([], agent="react")
    assert len(server.requests) == 1  # mid-stream: not retried


def test_timeout_before_the_reply_is_retried(server, script):
    script.add("react", Reply(content="late", delay=2.0), Reply(content="prompt"))
    with make_client(server, read_timeout=0.3) as client:
        assert client.chat([], agent="react").content == "prompt"
    assert len(server.requests) == 2


def test_connection_refused_is_retried_then_reported():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    bus = EventBus("s")
    retries = []
    bus.subscribe(lambda e: retries.append(e) if isinstance(e, ModelRetry) else None)
    with ChatClient(base_url=f"http://127.0.0.1:{port}/v1", model="m", bus=bus, max_retries=2, retry_base_delay=0.01) as client:
        with pytest.raises(ModelConnectionError, match=f"cannot connect to http://127.0.0.1:{port}/v1"):
            client.chat([], agent="react")
    assert len(retries) == 2


def _cancel_after(event: threading.Event, seconds: float) -> list[float]:
    fired: list[float] = []

    def fire() -> None:
        time.sleep(seconds)
        fired.append(time.monotonic())
        event.set()

    threading.Thread(target=fire, daemon=True).start()
    return fired


@pytest.mark.parametrize("reply", [
    Reply(content="a" * 40, chunk_chars=4, chunk_delay=5.0),  # silent mid-stream
    Reply(content="a", delay=5.0),  # silent before the headers
], ids=["mid-stream", "before-headers"])
def test_cancellation_closes_a_silent_stream(server, script, bus, reply):
    script.add("react", reply, Reply(content="still usable"))
    cancel = threading.Event()
    with make_client(server, bus) as client:
        fired = _cancel_after(cancel, 0.3)
        with pytest.raises(ModelCancelled):
            client.chat([], agent="react", cancel=cancel)
        latency = time.monotonic() - fired[0]
        print(f"cancellation latency: {latency * 1000:.1f} ms")
        assert latency < 2.0  # far below the 5 s the server would stay silent
        assert client.chat([], agent="react").content == "still usable"
    assert not [e for e in bus.events if isinstance(e, ModelErrorEvent)]  # a cancel is not a failure
    assert len([e for e in bus.events if isinstance(e, ModelCallCancelled)]) == 1


def test_cancellation_wakes_a_backoff_sleep(server, script):
    script.add("react", Reply(status=429, headers={"Retry-After": "20"}))
    cancel = threading.Event()
    with make_client(server, retry_max_delay=30.0) as client:
        fired = _cancel_after(cancel, 0.2)
        with pytest.raises(ModelCancelled):
            client.chat([], agent="react", cancel=cancel)
    assert time.monotonic() - fired[0] < 2.0
    assert len(server.requests) == 1


def test_already_cancelled_sends_nothing(server, script):
    cancel = threading.Event()
    cancel.set()
    with make_client(server) as client:
        with pytest.raises(ModelCancelled):
            client.chat([], agent="react", cancel=cancel)
    assert server.requests == []


def test_concurrent_calls_from_worker_threads(server, script):
    for n in range(4):
        script.add(f"worker-{n}", Reply(content=f"from {n}", chunk_chars=1, chunk_delay=0.01))
    results: dict[int, str] = {}
    with make_client(server) as client:
        threads = [threading.Thread(target=lambda n=n: results.__setitem__(n, client.chat([], agent=f"worker-{n}").content)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
    assert results == {n: f"from {n}" for n in range(4)}


def test_a_full_endpoint_url_is_accepted_as_base_url(server, script):
    script.add("react", Reply(content="ok"))
    with ChatClient(base_url=server.base_url + "/chat/completions/", model="m") as client:
        assert client.base_url == server.base_url
        assert client.chat([], agent="react").content == "ok"


def test_a_base_url_without_scheme_fails_at_once():
    with ChatClient(base_url="localhost:9/v1", model="m", max_retries=3, retry_base_delay=5.0) as client:
        with pytest.raises(ModelConnectionError, match="cannot use base URL localhost:9/v1"):
            client.chat([], agent="react")


def test_an_html_page_instead_of_a_stream_is_explained(server, script):
    script.add("react", Reply(body="<html><body>Login required</body></html>", headers={"Content-Type": "text/html"}))
    with make_client(server) as client:
        with pytest.raises(ModelResponseError, match="unreadable response from .*Login required"):
            client.chat([], agent="react")
