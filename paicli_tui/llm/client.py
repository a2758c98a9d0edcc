"""OpenAI-compatible Chat Completions client (P-1.1 – P-1.6).

Synchronous ``httpx`` used from worker threads. One ``chat`` call = one
logical request, retried on connection errors, timeouts before the reply
body began, and HTTP 408/409/429/5xx. Every failure surfaces as a typed
ModelError whose message never contains the API key.

A call may carry a deadline (a ``time.monotonic()`` value, the caller's
time budget): it is checked before each attempt, after every network read
of the stream (pings included), and by the cancel watcher, which shuts the
socket down when it passes; a retry whose backoff would end after it is not
waited for. What the client holds of a reply is capped (reader.py).

``response_format`` and ``max_tokens`` are optional fields some servers
refuse: an HTTP 400 that names one is detected once per client (one client
per session), the call is sent again at once without it (or, for a server
that asks for ``max_completion_tokens``, with the limit under that name),
later calls leave it out, and ``capability_dropped`` records it. A refusal
that names a ``response_format`` form (``json_schema``, a ``type``, the
schema) steps one rung down instead (structured_output.LADDER), and so does
an HTTP 5xx naming the field: llama-cpp-python answers the ``json_schema``
form with a 500, which is a refusal to read, not a failure worth a retry.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import random
import ssl
import threading
import time
from typing import TYPE_CHECKING

import httpx

from paicli_tui import __version__
from paicli_tui import events as ev
from paicli_tui.llm.call_clock import CallClock, emitter
from paicli_tui.llm.call_events import RequestEvents, response_event
from paicli_tui.llm.cancel import CANCEL_EXTENSION, CancelWatch, install_tracking
from paicli_tui.llm.markup import recover_tool_calls
from paicli_tui.llm.reader import ReplyReader
from paicli_tui.llm.refusals import NAMES_A_FORM, refused_field
from paicli_tui.llm.retry import MIN_RETRY_DELAY, backoff_delay
from paicli_tui.llm.slots import SlotGate, gate_for
from paicli_tui.llm.tool_union import UnreadableUnionReply, as_plain_transcript, read_union_reply, union_schema
from paicli_tui.llm.structured_output import at_most, grammar_schema, kind_of, weaker
from paicli_tui.llm.types import (
    ChatResult,
    DeltaCallback,
    CANCELLED_MESSAGE,
    ModelCancelled,
    ModelConnectionError,
    ModelDeadlineError,
    ModelError,
    ModelHTTPError,
    ModelInterrupted,
)
from paicli_tui.llm.usage_estimate import Counter, estimate

if TYPE_CHECKING:
    from paicli_tui.config.settings import ResponseFormatKind, Settings
    from paicli_tui.events import EventBus


class ChatClient:
    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        session_id: str = "",
        bus: "EventBus | None" = None,
        transport: httpx.BaseTransport | None = None,
        connect_timeout: float = 10.0,
        read_timeout: float = 120.0,
        max_retries: int = 4,
        retry_base_delay: float = 1.0,
        retry_max_delay: float = 30.0,
        model_label: str | None = None,
        server_slots: int | None = None,
    ) -> None:
        # People paste the full endpoint as often as the base URL.
        self.base_url = base_url.rstrip("/").removesuffix("/chat/completions")
        self.model = model
        self.model_label = model_label or model
        self.session_id = session_id
        self.bus = bus
        self.max_retries = max_retries
        self.retry_base_delay = retry_base_delay
        self.retry_max_delay = retry_max_delay
        #: Name of the key's environment variable, for the hint in auth errors;
        #: empty gives a generic hint (from_settings leaves a preset's default
        #: variable out for a local server, which rarely wants a key at all).
        self.api_key_env = ""
        self._api_key = api_key or None
        self._url: httpx.URL | str = self.base_url + "/chat/completions"
        try:
            # Parsed once here: httpx parses a text URL again on every call
            # (about 5 % of a fast call's time).
            self._url = httpx.URL(self._url)
        except httpx.InvalidURL:
            pass  # the first call reports it, as "cannot use base URL …"
        headers = {"User-Agent": f"paicli/{__version__}", "X-PaiCLI-Session": session_id}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        timeout = httpx.Timeout(connect=connect_timeout, read=read_timeout, write=read_timeout, pool=connect_timeout)
        if transport is None:
            self._http = httpx.Client(headers=headers, timeout=timeout, verify=_tls_context())
        else:
            self._http = httpx.Client(headers=headers, timeout=timeout, transport=transport)
        # Also covers a caller's own httpx.HTTPTransport; in-process transports have no sockets.
        self._tracking = install_tracking(self._http)
        self._reader = ReplyReader(self.base_url, connect_timeout, read_timeout)
        #: Read <tool_call> blocks in a reply's text as calls (the setting
        #: tool_calls_in_content), for requests that offered tools.
        self.tool_calls_in_content = False
        self._sent_lock = threading.Lock()
        self._requests = RequestEvents()
        #: Optional fields the server refused this session (see the module doc).
        self.dropped: set[str] = set()
        #: The strongest ``response_format`` form this server still gets.
        self.format_ceiling: ResponseFormatKind = "json_schema"
        #: The body key of the output limit; None once the server refused it.
        self._limit_key: str | None = "max_tokens"
        #: One request per server slot (llm/slots.py); None: no limit.
        self.gate: SlotGate | None = gate_for(self.base_url, server_slots) if server_slots else None
        #: Counts tokens for replies without usage: the server's tokenizer
        #: once a probe found it (llm/server_probe.py), else characters.
        self.token_counter: Counter | None = None
        #: native: ``tools`` go to the server; union: every reply with tools
        #: is constrained to one tool call or a final answer (llm/tool_union.py).
        self.tool_mode = "native"
        #: A probe may switch tool_mode to union (the setting tool_mode = auto).
        self.tool_mode_auto = False
        #: Ask the server what it is on the first call (llm/server_probe.py).
        self.probe_pending = False
        #: server_slots was set: a probe does not resize the gate.
        self.slots_pinned = False

    @classmethod
    def from_settings(
        cls, settings: "Settings", *, session_id: str, bus: "EventBus | None" = None, transport: httpx.BaseTransport | None = None
    ) -> "ChatClient":
        resolved = settings.resolved()
        label = None
        if settings.provider == "demo":
            label = "demo (DEMO)"
            if transport is None:
                from paicli_tui.llm.offline.demo import DemoTransport

                transport = DemoTransport()
        client = cls(
            base_url=resolved.base_url,
            model=resolved.model,
            api_key=resolved.api_key(),
            session_id=session_id,
            bus=bus,
            transport=transport,
            connect_timeout=settings.connect_timeout,
            read_timeout=settings.read_timeout,
            max_retries=settings.max_retries,
            retry_base_delay=settings.retry_base_delay,
            retry_max_delay=settings.retry_max_delay,
            model_label=label,
            server_slots=settings.slots_for(resolved.base_url),
        )
        from paicli_tui.config.settings import is_local_url

        if settings.api_key_env is not None or not is_local_url(resolved.base_url):
            client.api_key_env = resolved.api_key_env
        client.tool_calls_in_content = settings.tool_calls_in_content
        client.probe_pending = settings.probe_server and client.gate is not None and is_local_url(resolved.base_url)
        client.slots_pinned = settings.server_slots is not None
        client.tool_mode = "union" if settings.tool_mode == "union" else "native"
        client.tool_mode_auto = settings.tool_mode == "auto"
        return client

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "ChatClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one call -------------------------------------------------------------

    def chat(
        self,
        messages: list[dict],
        *,
        agent: str,
        tools: list[dict] | None = None,
        stream: bool = True,
        cancel: threading.Event | None = None,
        on_delta: DeltaCallback | None = None,
        deadline: float | None = None,
        response_format: dict | None = None,
        max_tokens: int | None = None,
        hard_deadline: float | None = None,
        tool_choice: dict | str | None = None,
        final_format: dict | None = None,
    ) -> ChatResult:
        """One logical request. ``deadline`` (monotonic seconds) ends the call
        with ModelDeadlineError once passed, wherever it is waiting; time
        spent queued for a server slot moves it later, never past
        ``hard_deadline`` (the run's limit). ``response_format`` and
        ``max_tokens`` go into the body unless the server refused them
        earlier this session."""
        if self.probe_pending:
            self.probe_pending = False
            from paicli_tui.llm.server_probe import adopt_probe

            adopt_probe(self)
        call_id = _new_call_id()
        started = time.monotonic()
        bus = self.bus
        response_format = at_most(response_format, self.format_ceiling)
        if self._limit_key is None:
            max_tokens = None
        union = bool(tools) and self.tool_mode == "union" and self.format_ceiling in ("json_schema", "json_object_schema")
        if bus is not None:
            bus.publish(self._requests.request(self.model, messages, agent, tools, call_id, max_tokens, response_format))
        body: dict = {"model": self.model, "messages": messages, "stream": stream}
        if stream:
            body["stream_options"] = {"include_usage": True}
        if union:
            # The history stays canonical; only the wire form changes (llm/tool_union.py).
            body["messages"] = as_plain_transcript(messages, tools or [])
            response_format = {"type": "json_object", "schema": union_schema(tools or [], grammar_schema(final_format))}
        elif tools:
            body["tools"] = tools
            if tool_choice is not None:
                body["tool_choice"] = tool_choice
        if max_tokens is not None and self._limit_key is not None:
            body[self._limit_key] = max_tokens
        if response_format is not None:
            body["response_format"] = response_format
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = {
            "X-PaiCLI-Agent": agent,
            "Content-Type": "application/json",
            "Accept": "text/event-stream" if stream else "application/json",
        }
        if stream:
            # A compressing proxy would buffer the stream to fill its blocks.
            headers["Accept-Encoding"] = "identity"
        clock = CallClock()
        emit = emitter(on_delta, bus, agent, call_id, clock)
        retry = interruptions = 0
        while True:
            try:
                if cancel is not None and cancel.is_set():
                    raise ModelCancelled(CANCELLED_MESSAGE)
                if deadline is not None and time.monotonic() >= deadline:
                    raise self._reader.deadline_passed()
                deadline = self._take_slot(clock, cancel, deadline, hard_deadline, agent, call_id)
                sent = time.monotonic()
                try:
                    result = self._attempt(payload, headers, stream, cancel, emit, deadline)
                finally:
                    if self.gate is not None:
                        self.gate.release()
                if self.gate is not None:
                    self.gate.record(time.monotonic() - sent)
                break
            except ModelError as exc:
                error = self._scrubbed(exc)
                refused = self._refused_field(error, body)
                if refused is not None:
                    self._drop(refused, body, agent, call_id, error)
                    payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
                    continue  # at once and not counted: the server answered, it did not fail
                if isinstance(error, ModelInterrupted) and interruptions < MAX_INTERRUPTION_RETRIES:
                    # The server cut this reply short for another request: not
                    # a failure, and not charged to max_retries (0 in benches).
                    interruptions += 1
                    if bus is not None:
                        bus.publish(ev.ModelRetry(actor=agent, call_id=call_id, attempt=retry + interruptions,
                                                  delay_s=MIN_RETRY_DELAY, reason=str(error)))
                    if _wait_cancelled(MIN_RETRY_DELAY, cancel):
                        error = ModelCancelled(CANCELLED_MESSAGE)
                        self._publish_error(agent, call_id, error)
                        raise error from None
                    continue
                final = isinstance(error, (ModelCancelled, ModelDeadlineError)) or not error.retryable or retry >= self.max_retries
                if final:
                    if retry and error.retryable:
                        error.args = (f"{error} (gave up after {retry + 1} attempts)",)
                    self._publish_error(agent, call_id, error)
                    raise error from None
                retry += 1
                delay = backoff_delay(retry, self.retry_base_delay, self.retry_max_delay, getattr(error, "retry_after", None))
                if bus is not None:
                    bus.publish(ev.ModelRetry(actor=agent, call_id=call_id, attempt=retry, delay_s=round(delay, 3), reason=str(error)))
                stopped = self._wait_before_retry(delay, cancel, deadline)
                if stopped is not None:
                    self._publish_error(agent, call_id, stopped)
                    raise stopped from None
        if tools and self.tool_calls_in_content:
            result = recover_tool_calls(result)
        # Counted as sent: in union mode the tools are a line each in the
        # system message and a grammar, not schemas in the prompt.
        result = self._with_figures(result, clock, body["messages"], None if union else tools)
        unreadable = None
        if union and "response_format" in body:
            try:
                result = read_union_reply(result, tools or [], call_id)
            except UnreadableUnionReply as exc:
                unreadable = exc
        if bus is not None:
            bus.publish(response_event(result, agent, call_id, time.monotonic() - started))
        if unreadable is not None:
            self._publish_error(agent, call_id, unreadable)
            raise unreadable
        return result

    def _take_slot(
        self, clock: CallClock, cancel: threading.Event | None, deadline: float | None,
        hard_deadline: float | None, agent: str, call_id: str,
    ) -> float | None:
        """Wait for a server slot (per attempt: a call in backoff holds
        none); the deadline, moved later by the wait. Marks the send."""
        if self.gate is not None:
            def announce(slots: int) -> None:
                if self.bus is not None:
                    self.bus.publish(ev.ModelQueued(actor=agent, call_id=call_id, slots=slots))

            waited = self.gate.acquire(cancel, hard_deadline, announce, need_s=self.gate.typical_s())
            clock.queued_s += waited
            if deadline is not None and waited > 0:
                # Moved later by the wait, up to the run's own limit; never earlier.
                later = deadline + waited
                deadline = max(deadline, min(later, hard_deadline)) if hard_deadline is not None else later
        clock.sent()
        return deadline

    def _with_figures(self, result: ChatResult, clock: CallClock, messages: list[dict], tools: list[dict] | None) -> ChatResult:
        """The result with its timings, and counted tokens when the server
        reported none."""
        usage = result.usage
        if not result.usage_reported:
            try:
                usage = estimate(messages, result, self.token_counter, clock.deltas, tools)
            except Exception:  # noqa: BLE001 - a tokenizer failure must not lose the reply
                usage = estimate(messages, result, None, clock.deltas, tools)
        return dataclasses.replace(
            result, usage=usage, queued_s=round(clock.queued_s, 3), ttft_s=clock.ttft_s(),
            tokens_per_s=clock.tokens_per_s(usage.completion_tokens),
        )

    def _refused_field(self, error: ModelError, body: dict) -> str | None:
        return refused_field(error, body, self._limit_key)

    def _drop(self, name: str, body: dict, agent: str, call_id: str, error: ModelError) -> None:
        reason = str(error)
        fallback = ""
        if name == "max_tokens":
            limit = body.pop(str(self._limit_key))
            if self._limit_key == "max_tokens" and "max_completion_tokens" in reason:
                # OpenAI's reasoning models take the limit under its newer name.
                self._limit_key = "max_completion_tokens"
                body[self._limit_key] = limit
                fallback = self._limit_key
            else:
                self._limit_key = None
        else:
            refused = body.pop("response_format")
            lower = weaker(refused) if NAMES_A_FORM.search(reason.lower()) else None
            if lower is not None:
                body["response_format"] = lower
            self.format_ceiling = kind_of(lower)
            fallback = "" if lower is None else self.format_ceiling
        if not fallback:
            with self._sent_lock:
                self.dropped.add(name)
        if self.bus is not None:
            self.bus.publish(ev.CapabilityDropped(actor=agent, call_id=call_id, field=name, reason=reason, fallback=fallback))

    def _wait_before_retry(self, delay: float, cancel: threading.Event | None, deadline: float | None) -> ModelError | None:
        """Sleep the backoff delay; the error to end the call with when
        cancel came meanwhile or the deadline would pass first (the wait is
        then not begun: the time is used up either way)."""
        if deadline is not None and time.monotonic() + delay >= deadline:
            error = self._reader.deadline_passed()
            error.args = (f"{error} (a retry was due in {delay:.1f} s)",)
            return error
        if _wait_cancelled(delay, cancel):
            return ModelCancelled(CANCELLED_MESSAGE)
        return None

    def _attempt(
        self, payload: bytes, headers: dict, stream: bool, cancel: threading.Event | None, emit, deadline: float | None
    ) -> ChatResult:
        extensions = {CANCEL_EXTENSION: cancel} if cancel is not None else None
        try:
            request = self._http.build_request("POST", self._url, content=payload, headers=headers, extensions=extensions)
        except httpx.InvalidURL as exc:
            error = ModelConnectionError(f"cannot use base URL {self.base_url}: {exc}")
            error.retryable = False
            raise error from None
        reader = self._reader
        with CancelWatch(cancel, self._tracking, deadline) as watch:
            try:
                response = self._http.send(request, stream=True)
            except httpx.RequestError as exc:
                raise reader.transport_error(exc, cancel, body_started=False, deadline=deadline) from None
            try:
                if self._tracking is None:
                    watch.fallback = response.close
                if cancel is not None and cancel.is_set():
                    raise ModelCancelled(CANCELLED_MESSAGE)
                if not 200 <= response.status_code < 300:
                    raise reader.status_error(
                        response, cancel, deadline, key_sent=self._api_key is not None, key_env=self.api_key_env
                    )
                content_type = response.headers.get("content-type", "")
                if stream and not content_type.startswith("application/json"):
                    return reader.read_stream(response, cancel, emit, deadline)
                return reader.read_json(response, cancel, emit, deadline)
            finally:
                response.close()

    # -- events -----------------------------------------------------------------

    def _publish_error(self, agent: str, call_id: str, error: ModelError) -> None:
        if self.bus is None:
            return
        if isinstance(error, ModelCancelled):
            # The person stopped it: an outcome of its own, not a failure.
            self.bus.publish(ev.ModelCallCancelled(actor=agent, call_id=call_id))
        else:
            self.bus.publish(ev.ModelError(actor=agent, call_id=call_id, kind=error.kind, message=str(error)))

    def _scrubbed(self, error: ModelError) -> ModelError:
        # Belt and braces: a server may echo the key back in an error body.
        key = self._api_key
        if key and error.args and key in str(error.args[0]):
            error.args = (str(error.args[0]).replace(key, "[REDACTED]"),)
        return error


#: Times an interrupted reply (llm/types.ModelInterrupted) is asked again,
#: apart from max_retries: the server is fine, another request cut it short.
MAX_INTERRUPTION_RETRIES = 2

# Call ids need uniqueness, not secrecy: 48 random bits, as the first 12 hex
# digits of a uuid4 had, without uuid4's read of the OS random source on
# every call (a system call that, with tasks on several threads, also hands
# the GIL to another thread). Seeded from the OS once, and again in a child
# process, whose ids must differ from its parent's.
_call_ids = random.Random()
os.register_at_fork(after_in_child=_call_ids.seed)


def _new_call_id() -> str:
    return f"{_call_ids.getrandbits(48):012x}"


@functools.lru_cache(maxsize=1)
def _tls_context() -> ssl.SSLContext:
    """One verified TLS context per process: loading the CA bundle costs
    ~0.1 s, and every agent instance makes its own client."""
    return httpx.create_ssl_context()


def _wait_cancelled(seconds: float, cancel: threading.Event | None) -> bool:
    """Sleep for a backoff delay; True when ``cancel`` was set meanwhile."""
    if cancel is None:
        time.sleep(seconds)
        return False
    return cancel.wait(seconds)
