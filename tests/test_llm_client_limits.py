"""Issue 12: a call's deadline holds wherever the client waits (class 4), and
what the client buffers of a reply is capped (class 6). Real loopback
servers that misbehave; the giant bodies are generated as they are sent."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from paicli_tui.events import EventBus, ModelRetry
from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.offline.scripted import Reply
from paicli_tui.llm.types import ModelDeadlineError, ModelResponseError, ModelStreamError
from tests.support.cli import paicli_env
from tests.support.server import LoopbackServer, RawReply, pings_forever, repeated, sse_chunk

pytestmark = pytest.mark.timeout(60)
MiB = 1024 * 1024


def _client(server, **options) -> ChatClient:
    settings = {"retry_base_delay": 0.05, "retry_max_delay": 0.2, **options}
    return ChatClient(base_url=server.base_url, model="m", **settings)


# -- the deadline ----------------------------------------------------------------


def test_a_stream_of_only_pings_ends_at_the_deadline():
    with LoopbackServer(lambda request: RawReply(pings_forever(0.1))) as server, _client(server) as client:
        started = time.monotonic()
        with pytest.raises(ModelDeadlineError, match="time budget ran out"):
            client.chat([], agent="react", deadline=started + 0.5)
        assert time.monotonic() - started < 10  # the stream itself never ends
        assert len(server.requests) == 1  # a used-up budget is not retried


def test_a_wait_for_the_first_byte_ends_at_the_deadline():
    # read_timeout is 120 s: only the deadline can end this wait early.
    with LoopbackServer(lambda request: Reply(content="late", delay=30)) as server, _client(server) as client:
        started = time.monotonic()
        with pytest.raises(ModelDeadlineError):
            client.chat([], agent="react", deadline=started + 0.5)
        assert time.monotonic() - started < 10


def test_a_retry_due_after_the_deadline_is_not_waited_for():
    bus = EventBus("s")
    seen: list = []
    bus.subscribe(seen.append)
    busy = Reply(status=503, headers={"Retry-After": "20"}, body='{"error": {"message": "busy"}}')
    with LoopbackServer(lambda request: busy) as server, _client(server, bus=bus, retry_max_delay=30) as client:
        started = time.monotonic()
        with pytest.raises(ModelDeadlineError, match="a retry was due in 20.0 s"):
            client.chat([], agent="react", deadline=started + 2)
        assert time.monotonic() - started < 10
        assert len(server.requests) == 1


@pytest.mark.parametrize("retry_after", ["0", "-5"])
def test_retry_after_zero_or_negative_still_backs_off(retry_after):
    bus = EventBus("s")
    seen: list = []
    bus.subscribe(seen.append)
    replies = iter([Reply(status=429, headers={"Retry-After": retry_after}), Reply(content="ok")])
    with LoopbackServer(lambda request: next(replies)) as server, _client(server, bus=bus) as client:
        assert client.chat([], agent="react").content == "ok"
    (retry,) = [event for event in seen if isinstance(event, ModelRetry)]
    assert retry.delay_s >= 0.025  # half of retry_base_delay at least: the jittered backoff


# -- bounded buffers ---------------------------------------------------------------


def test_a_64_mib_sse_line_is_rejected_with_a_clear_error():
    line = repeated(b"a" * 65536, 64 * MiB, prefix=b'data: {"choices": [{"delta": {"content": "')
    with LoopbackServer(lambda request: RawReply(line)) as server, _client(server) as client:
        with pytest.raises(ModelStreamError, match="rejected: a line of the event stream is longer than 8 MiB"):
            client.chat([], agent="react")


def test_a_long_line_split_over_many_reads_still_arrives_whole():
    text = "x" * MiB
    event = sse_chunk(text)

    def pieces(stopping):
        for start in range(0, len(event), 1000):
            yield event[start:start + 1000]
        yield sse_chunk(finish_reason="stop")

    with LoopbackServer(lambda request: RawReply(pieces)) as server, _client(server) as client:
        assert client.chat([], agent="react").content == text


def test_a_non_streamed_reply_over_32_mib_is_refused():
    body = repeated(b" " * 65536, 40 * MiB, prefix=b'{"choices": [')
    with LoopbackServer(lambda request: RawReply(body, content_type="application/json")) as server, _client(server) as client:
        with pytest.raises(ModelResponseError, match=r"^reply from http://127\.0\.0\.1:\d+/v1 exceeds 32 MiB$"):
            client.chat([], agent="react", stream=False)


MEASURE = """
import resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(proc.returncode)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "")
"""


def test_a_300_mb_error_body_keeps_the_client_small(tmp_path, paicli_home):
    body = repeated(b"e" * 65536, 300 * 1000 * 1000, prefix=b'{"error": {"message": "overloaded ')
    workspace = tmp_path / "ws"
    workspace.mkdir()
    reply = RawReply(body, status=500, content_type="application/json")
    with LoopbackServer(lambda request: reply) as server:
        paicli = [sys.executable, "-m", "paicli_tui", "run", "--base-url", server.base_url, "--model", "m",
                  "--workspace", str(workspace), "hello"]
        measured = subprocess.run(
            [sys.executable, "-c", MEASURE, *paicli], capture_output=True, text=True, timeout=50,
            env=paicli_env(paicli_home, PAICLI_MAX_RETRIES="0"), cwd=workspace,
        )
    code, max_rss_kib, last_line = measured.stdout.splitlines()
    assert code == "1"
    assert "returned HTTP 500: " in last_line and '"overloaded eeee' in last_line  # cut JSON: shown as text
    assert int(max_rss_kib) < 200 * 1024, f"client peaked at {int(max_rss_kib) // 1024} MiB"
