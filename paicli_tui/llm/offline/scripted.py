"""A scripted model: canned replies per agent, rendered exactly as an
OpenAI-compatible server would send them.

Shared by engine tests (through ScriptedTransport, the real client code
path in-process), the loopback test server (real sockets) and the demo.
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Sequence

import httpx

from paicli_tui.llm.cancel import CANCEL_EXTENSION
from paicli_tui.llm.types import Usage


@dataclass
class Reply:
    content: str = ""
    reasoning: str = ""
    tool_calls: Sequence[tuple[str, dict | str]] = ()  # (name, arguments dict or raw JSON text)
    usage: Usage | None = Usage(12, 7, 0)  # None → no usage at all
    finish_reason: str | None = None  # default: "tool_calls" if tool_calls else "stop"
    chunk_chars: int = 8  # characters per streamed fragment
    chunk_delay: float = 0.0  # seconds between chunks
    delay: float = 0.0  # seconds before the first byte
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)  # e.g. {"Retry-After": "1"}
    body: str | None = None  # raw body override (error JSON, "" for an empty 200)
    drop_after_chunks: int | None = None  # disconnect mid-stream after N chunks
    repeat_tool_names: bool = False  # llama.cpp quirk: id and name in every chunk
    ping_comments: bool = False  # ": ping" lines between chunks
    interrupted_after_chunks: int | None = None  # N content chunks, then [DONE] with no finish_reason

    @property
    def final_reason(self) -> str:
        return self.finish_reason or ("tool_calls" if self.tool_calls else "stop")


class Headers(dict):
    """Header names are case-insensitive; stored lower-case."""

    def __init__(self, items: Iterable[tuple[str, str]] = ()) -> None:
        super().__init__((k.lower(), v) for k, v in items)

    def __getitem__(self, key: str) -> str:
        return super().__getitem__(key.lower())

    def __contains__(self, key: object) -> bool:
        return super().__contains__(key.lower() if isinstance(key, str) else key)

    def get(self, key: str, default=None):  # type: ignore[override]
        return super().get(key.lower(), default)


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict

    @property
    def agent(self) -> str:
        for name, value in self.headers.items():
            if name.lower() == "x-paicli-agent":
                return value
        return ""

    @property
    def tools(self) -> list[str] | None:
        if "tools" not in self.body:
            return None
        return [(t.get("function") or {}).get("name", "") for t in self.body["tools"] or ()]

    @property
    def messages(self) -> list[dict]:
        return self.body.get("messages") or []


Responder = Callable[[RecordedRequest], Reply]


def _error_reply(status: int, message: str) -> Reply:
    return Reply(status=status, body=json.dumps({"error": {"message": message, "type": "script_error"}}))


class Script:
    """A thread-safe Responder popping replies from per-agent queues.

    The queue for agent ``task_3`` is the first present of ``task_3``,
    ``task``, then ``*``; ``reviewer-step_2`` also tries ``reviewer-step``
    and ``reviewer``. An exhausted or missing queue falls back to
    ``default``, else a 500 reply saying so.
    """

    def __init__(self, replies: dict[str, list[Reply]] | None = None, default: Responder | None = None) -> None:
        self._queues = {agent: deque(items) for agent, items in (replies or {}).items()}
        self.default = default
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()

    def add(self, agent: str, *replies: Reply) -> None:
        with self._lock:
            self._queues.setdefault(agent, deque()).extend(replies)

    def __call__(self, request: RecordedRequest) -> Reply:
        agent = request.agent
        with self._lock:
            self.requests.append(request)
            queue = self._queue_for(agent)
            reply = queue.popleft() if queue else None
        if reply is not None:
            return reply
        if self.default is not None:
            return self.default(request)
        return _error_reply(500, f"script exhausted for {agent or '(no agent header)'}")

    def _queue_for(self, agent: str) -> deque | None:
        for key in (agent, re.sub(r"[-_]\d+$", "", agent), re.split(r"[-_]", agent, maxsplit=1)[0], "*"):
            if key in self._queues:
                return self._queues[key]
        return None


# -- rendering -----------------------------------------------------------------


def _pieces(text: str, size: int) -> list[str]:
    if not text:
        return []
    if size <= 0:
        return [text]
    return [text[i : i + size] for i in range(0, len(text), size)]


def _arguments(arguments: dict | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def _usage(usage: Usage) -> dict:
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens},
    }


def _chunk(model: str, delta: dict | None, finish: str | None = None, usage: dict | None = None) -> bytes:
    body: dict = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1700000000, "model": model}
    body["choices"] = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    if usage is not None:
        body["usage"] = usage
    return b"data: " + json.dumps(body, ensure_ascii=False).encode("utf-8") + b"\n\n"


def sse_events(reply: Reply, model: str = "scripted") -> Iterator[bytes]:
    """The SSE body of a streamed reply, one event per item."""
    ping = b": ping\n\n" if reply.ping_comments else b""
    yield _chunk(model, {"role": "assistant", "content": ""})
    if reply.interrupted_after_chunks is not None:
        # What llama-cpp-python sends when another request cuts this one short.
        for piece in _pieces(reply.content, reply.chunk_chars)[: reply.interrupted_after_chunks]:
            yield _chunk(model, {"content": piece})
        yield b"data: [DONE]\n\n"
        return
    for piece in _pieces(reply.reasoning, reply.chunk_chars):
        yield ping + _chunk(model, {"reasoning_content": piece})
    for piece in _pieces(reply.content, reply.chunk_chars):
        yield ping + _chunk(model, {"content": piece})
    for index, (name, arguments) in enumerate(reply.tool_calls):
        head = {"index": index, "id": f"call_{index}", "type": "function", "function": {"name": name, "arguments": ""}}
        yield ping + _chunk(model, {"tool_calls": [head]})
        for piece in _pieces(_arguments(arguments), reply.chunk_chars):
            fragment = dict(head, function={"name": name, "arguments": piece}) if reply.repeat_tool_names else {
                "index": index, "function": {"arguments": piece}}
            yield ping + _chunk(model, {"tool_calls": [fragment]})
    yield ping + _chunk(model, {}, reply.final_reason)
    if reply.usage is not None:
        yield _chunk(model, None, usage=_usage(reply.usage))
    yield b"data: [DONE]\n\n"


def json_body(reply: Reply, model: str = "scripted") -> bytes:
    """The body of a non-streamed reply."""
    message: dict = {"role": "assistant", "content": reply.content if reply.content or not reply.tool_calls else None}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": _arguments(arguments)}}
            for i, (name, arguments) in enumerate(reply.tool_calls)
        ]
    body: dict = {
        "id": "chatcmpl-scripted", "object": "chat.completion", "created": 1700000000, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": reply.final_reason}],
    }
    if reply.usage is not None:
        body["usage"] = _usage(reply.usage)
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def plain_body(reply: Reply, streamed: bool) -> tuple[bytes, str] | None:
    """(body, content type) when the reply is not a rendered stream: an
    error status, or a raw body override. None for a normal stream."""
    if reply.body is not None:
        if reply.status == 200 and streamed:
            return reply.body.encode("utf-8"), "text/event-stream"
        return reply.body.encode("utf-8"), "application/json"
    if reply.status != 200:
        return json.dumps({"error": {"message": f"HTTP {reply.status}", "type": "scripted"}}).encode(), "application/json"
    return None


# -- in-process transport -------------------------------------------------------


def _paused(seconds: float, cancel: threading.Event | None) -> bool:
    """Wait like a slow server; True when the client cancelled meanwhile
    (then it would have closed the socket)."""
    if seconds <= 0:
        return bool(cancel and cancel.is_set())
    if cancel is None:
        threading.Event().wait(seconds)
        return False
    return cancel.wait(seconds)


class _ReplyStream(httpx.SyncByteStream):
    def __init__(self, chunks: Iterator[bytes], reply: Reply, cancel: threading.Event | None) -> None:
        self._chunks = chunks
        self._reply = reply
        self._cancel = cancel

    def __iter__(self) -> Iterator[bytes]:
        reply = self._reply
        for n, chunk in enumerate(self._chunks):
            if reply.drop_after_chunks is not None and n >= reply.drop_after_chunks:
                raise httpx.RemoteProtocolError("peer closed connection without sending complete message body")
            if n and _paused(reply.chunk_delay, self._cancel):
                raise httpx.RemoteProtocolError("connection closed by the client")
            yield chunk


class ScriptedTransport(httpx.BaseTransport):
    """Serves a Responder in-process through the real client code path."""

    def __init__(self, responder: Responder) -> None:
        self.responder = responder
        self.requests: list[RecordedRequest] = responder.requests if isinstance(responder, Script) else []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        cancel = request.extensions.get(CANCEL_EXTENSION)
        try:
            body = json.loads(request.read() or b"{}")
        except ValueError:
            return httpx.Response(400, json={"error": {"message": "request body is not JSON"}})
        recorded = RecordedRequest(request.url.path, Headers(request.headers.items()), body)
        if not isinstance(self.responder, Script):
            self.requests.append(recorded)
        reply = self.responder(recorded)
        if _paused(reply.delay, cancel):
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
        streamed = bool(body.get("stream"))
        model = str(body.get("model") or "scripted")
        plain = plain_body(reply, streamed)
        if plain is not None or not streamed:
            content, content_type = plain or (json_body(reply, model), "application/json")
            headers = {"Content-Type": content_type, **reply.headers}
            return httpx.Response(reply.status, headers=headers, content=content)
        headers = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", **reply.headers}
        return httpx.Response(reply.status, headers=headers, stream=_ReplyStream(sse_events(reply, model), reply, cancel))
