"""Reading one reply body (streamed or not) into a ChatResult, and naming
transport failures. Split from the client so the hot streaming loop sits
on its own."""

from __future__ import annotations

import json
import threading
import time
from typing import Callable

import httpx

from paicli_tui.llm.completion import parse_completion
from paicli_tui.llm.retry import parse_retry_after, server_message
from paicli_tui.llm.sse import SSEDecoder, SSELimitError, StreamAccumulator
from paicli_tui.llm.types import (
    ChatResult,
    Delta,
    ModelAuthError,
    CANCELLED_MESSAGE,
    ModelCancelled,
    ModelConnectionError,
    ModelDeadlineError,
    ModelError,
    ModelHTTPError,
    ModelInterrupted,
    ModelResponseError,
    ModelStreamError,
    ModelTimeoutError,
)

Emit = Callable[[Delta], None]

# The C scanner behind json.loads, called directly: the wrapper's whitespace
# checks cost as much as the scan itself for a 150-byte chunk, and this runs
# once per streamed token. Anything unusual falls back to json.loads.
_scan = json.JSONDecoder().scan_once

MiB = 1024 * 1024
#: Largest non-streamed reply body held in memory.
MAX_JSON_BYTES = 32 * MiB
#: Largest streamed reply (raw SSE bytes): far above any real completion,
#: low enough that a server streaming without end cannot fill the memory.
MAX_STREAM_BYTES = 256 * MiB
#: How much of an error reply is read: its message is cut to 200 characters.
MAX_ERROR_BYTES = 64 * 1024


def read_limited(response: httpx.Response, limit: int) -> tuple[bytes, bool]:
    """At most ``limit`` bytes of the (decoded) body, and whether there was
    more. The rest is never read: the caller closes the response."""
    parts: list[bytes] = []
    size = 0
    for piece in response.iter_bytes():
        parts.append(piece)
        size += len(piece)
        if size > limit:
            return b"".join(parts)[:limit], True
    return b"".join(parts), False


class ReplyReader:
    def __init__(self, base_url: str, connect_timeout: float, read_timeout: float) -> None:
        self.base_url = base_url
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout

    def cancelled(self) -> ModelCancelled:
        return ModelCancelled(CANCELLED_MESSAGE)

    def deadline_passed(self) -> ModelDeadlineError:
        return ModelDeadlineError(f"call to {self.base_url} stopped: its time budget ran out")

    def transport_error(
        self, exc: httpx.RequestError, cancel: threading.Event | None, *, body_started: bool, deadline: float | None = None
    ) -> ModelError:
        """An httpx failure as a ModelError. Only failures before the body
        began are retryable: after that the caller has already seen deltas.
        A failure after cancel or the deadline is that (the watcher's abort
        caused it)."""
        url = self.base_url
        if cancel is not None and cancel.is_set():
            return self.cancelled()
        if deadline is not None and time.monotonic() >= deadline:
            return self.deadline_passed()
        if isinstance(exc, (httpx.ConnectTimeout, httpx.PoolTimeout)):
            return ModelTimeoutError(f"connecting to {url} timed out after {self.connect_timeout:g} s")
        if isinstance(exc, httpx.ReadTimeout):
            if body_started:
                error = ModelTimeoutError(f"stream from {url} stalled: no data for {self.read_timeout:g} s")
                error.retryable = False
                return error
            return ModelTimeoutError(f"no reply from {url} within {self.read_timeout:g} s")
        if isinstance(exc, httpx.TimeoutException):
            return ModelTimeoutError(f"sending the request to {url} timed out")
        if isinstance(exc, httpx.UnsupportedProtocol):
            error = ModelConnectionError(f"cannot use base URL {url}: {exc}")
            error.retryable = False
            return error
        if isinstance(exc, httpx.ConnectError):
            return ModelConnectionError(f"cannot connect to {url}: {exc or type(exc).__name__}")
        if body_started:
            return ModelStreamError(f"stream from {url} ended early: {exc or type(exc).__name__}")
        return ModelConnectionError(f"connection to {url} failed: {exc or type(exc).__name__}")

    def status_error(
        self, response: httpx.Response, cancel: threading.Event | None, deadline: float | None, *, key_sent: bool, key_env: str
    ) -> ModelError:
        """The error for a non-2xx reply, with the server's own reason from
        the first MAX_ERROR_BYTES of the body (the rest is never read). An
        auth failure without a key names ``key_env``, or no variable at all."""
        status = response.status_code
        try:
            raw, _ = read_limited(response, MAX_ERROR_BYTES)
        except httpx.RequestError as exc:
            raise self.transport_error(exc, cancel, body_started=False, deadline=deadline) from None
        message = server_message(raw)
        reason = f": {message}" if message else ""
        url = self.base_url
        if status == 403:
            # Forbidden is not "unauthenticated": a region block, a model the
            # key may not use, a quota. Say what the server said.
            return ModelAuthError(f"{url} refused the request (403){reason}")
        if status == 401:
            if key_sent:
                return ModelAuthError(f"API key rejected by {url} ({status}){reason}")
            hint = f"set {key_env}" if key_env else "set an API key with --api-key-env VAR"
            return ModelAuthError(f"{url} requires an API key ({status}) and none was sent{reason}; {hint}")
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        return ModelHTTPError(f"{url} returned HTTP {status}{reason}", status, retry_after)

    def read_json(
        self, response: httpx.Response, cancel: threading.Event | None, emit: Emit, deadline: float | None = None
    ) -> ChatResult:
        try:
            raw, more = read_limited(response, MAX_JSON_BYTES)
        except httpx.RequestError as exc:
            raise self.transport_error(exc, cancel, body_started=False, deadline=deadline) from None
        if cancel is not None and cancel.is_set():
            raise self.cancelled()
        if deadline is not None and time.monotonic() >= deadline:
            raise self.deadline_passed()
        if more:
            raise ModelResponseError(f"reply from {self.base_url} exceeds {MAX_JSON_BYTES // MiB} MiB")
        result = self._parse_json(raw)
        if result.reasoning:
            emit(Delta("reasoning", result.reasoning))
        if result.content:
            emit(Delta("content", result.content))
        for n, call in enumerate(result.tool_calls):
            if call.arguments:
                emit(Delta("tool_call", call.arguments, n, call.name))
        return result

    def _parse_json(self, raw: bytes) -> ChatResult:
        text = raw.decode("utf-8", "replace").strip()
        if not text:
            raise ModelResponseError(f"empty response body from {self.base_url}")
        try:
            body = json.loads(text)
        except ValueError:
            raise ModelResponseError(f"unreadable response from {self.base_url}: {text[:100]!r}") from None
        return parse_completion(body, self.base_url)

    def read_stream(
        self, response: httpx.Response, cancel: threading.Event | None, emit: Emit, deadline: float | None = None
    ) -> ChatResult:
        decoder = SSEDecoder()
        accumulator = StreamAccumulator()
        received = 0
        done = False
        feed = decoder.feed
        consume = self._consume
        monotonic = time.monotonic
        # iter_raw skips httpx's decoder layer, one generator less per read;
        # stream requests ask for identity encoding, so it is rarely needed.
        encoded = response.headers.get("content-encoding", "identity").lower() not in ("", "identity")
        try:
            # Every read counts for the checks, also one that holds only a
            # ": ping" comment: a server pinging forever must not outlive
            # the deadline.
            for raw in response.iter_bytes() if encoded else response.iter_raw():
                received += len(raw)
                events = feed(raw)
                if events and not done:
                    done = consume(events, accumulator, emit)
                if cancel is not None and cancel.is_set():
                    raise self.cancelled()
                if deadline is not None and monotonic() >= deadline:
                    raise self.deadline_passed()
                if received > MAX_STREAM_BYTES:
                    raise ModelStreamError(f"stream from {self.base_url} exceeds {MAX_STREAM_BYTES // MiB} MiB")
        except httpx.RequestError as exc:
            raise self.transport_error(exc, cancel, body_started=received > 0, deadline=deadline) from None
        except SSELimitError as exc:
            raise ModelStreamError(f"stream from {self.base_url} rejected: {exc}") from None
        if cancel is not None and cancel.is_set():
            raise self.cancelled()
        if deadline is not None and monotonic() >= deadline:
            raise self.deadline_passed()
        try:
            events = decoder.close()
        except SSELimitError as exc:
            raise ModelStreamError(f"stream from {self.base_url} rejected: {exc}") from None
        if events and not done:
            done = self._consume(events, accumulator, emit)
        if received == 0:
            raise ModelResponseError(f"empty response body from {self.base_url}")
        if accumulator.chunks == 0 and not done:
            if not decoder.stray.strip():
                raise ModelStreamError(f"stream from {self.base_url} ended early: no events")
            # Not an event stream: some servers answer stream=true with plain JSON.
            return self._parse_json(decoder.stray)
        if accumulator.finish_reason is None:
            if done:
                raise ModelInterrupted(
                    f"stream from {self.base_url} was interrupted: [DONE] without a finish_reason"
                    " (the server stopped this reply, e.g. llama-cpp-python's interrupt_requests)"
                )
            raise ModelStreamError(f"stream from {self.base_url} ended early: no finish_reason and no [DONE]")
        for delta in accumulator.flush():
            emit(delta)
        return accumulator.result()

    def _consume(self, events: list[str], accumulator: StreamAccumulator, emit: Emit) -> bool:
        """Feed event payloads to the accumulator; True once ``[DONE]`` came
        (the rest of the body is then only drained so the connection can be
        reused)."""
        add = accumulator.add
        for data in events:
            if data == "[DONE]":
                return True
            if not data:
                continue
            try:
                chunk, end = _scan(data, 0)
                if end != len(data) and data[end:].strip():
                    raise ValueError(data)
            except (StopIteration, ValueError):
                chunk = self._loads_padded(data)
            try:
                deltas = add(chunk)
            except ModelStreamError as exc:
                raise ModelStreamError(f"{self.base_url} reported an error mid-stream: {exc}") from None
            for delta in deltas:
                emit(delta)
        return False

    def _loads_padded(self, data: str) -> dict:
        try:
            return json.loads(data)
        except ValueError:
            raise ModelStreamError(f"unreadable chunk in stream from {self.base_url}: {data[:100]!r}") from None
