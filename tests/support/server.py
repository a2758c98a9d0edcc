"""A small OpenAI-compatible chat-completions server for tests and benches.

Real socket on 127.0.0.1 (free port), real chunked SSE flushed per event,
replies from a Responder (usually a ``Script``), every request recorded.
A responder may also return a ``RawReply``: bytes written as a generator
makes them, for servers that misbehave without end (pings forever, a body
of hundreds of MB) and must not hold their reply in memory.

    with LoopbackServer(Script({"react": [Reply(content="hi")]})) as server:
        client = ChatClient(base_url=server.base_url, model="m")
"""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Iterable

from paicli_tui.llm.offline.scripted import (
    Headers,
    RecordedRequest,
    Reply,
    Responder,
    Script,
    json_body,
    plain_body,
    sse_events,
)


@dataclass
class RawReply:
    """Written piece by piece as ``pieces(stopping)`` yields them, with
    chunked transfer encoding; ``stopping`` is set when the server closes."""

    pieces: Callable[[threading.Event], Iterable[bytes]]
    status: int = 200
    content_type: str = "text/event-stream"
    headers: dict[str, str] = field(default_factory=dict)


def sse_chunk(content: str = "", finish_reason: str | None = None) -> bytes:
    """One ``chat.completion.chunk`` event carrying ``content``."""
    delta = {"content": content} if content else {}
    chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


def pings_forever(interval: float = 0.2) -> Callable[[threading.Event], Iterable[bytes]]:
    """A stream that opens and then only sends ``: ping`` comments."""

    def pieces(stopping: threading.Event) -> Iterable[bytes]:
        yield sse_chunk()
        while not stopping.wait(interval):
            yield b": ping\n\n"

    return pieces


def tokens_every(interval: float, count: int = 600) -> Callable[[threading.Event], Iterable[bytes]]:
    """A stream of ``count`` one-word tokens, ``interval`` seconds apart."""

    def pieces(stopping: threading.Event) -> Iterable[bytes]:
        for _ in range(count):
            yield sse_chunk("tok ")
            if stopping.wait(interval):
                return
        yield sse_chunk(finish_reason="stop") + b"data: [DONE]\n\n"

    return pieces


def repeated(piece: bytes, total: int, prefix: bytes = b"") -> Callable[[threading.Event], Iterable[bytes]]:
    """``prefix`` then ``piece`` repeated up to ``total`` bytes, generated
    as it is sent (a 300 MB body never exists in the server's memory)."""

    def pieces(stopping: threading.Event) -> Iterable[bytes]:
        if prefix:
            yield prefix
        sent = 0
        while sent < total and not stopping.is_set():
            yield piece
            sent += len(piece)

    return pieces


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, owner: "LoopbackServer") -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:  # silence per-request logging
        pass

    def setup(self) -> None:
        super().setup()
        # Like real servers: without this, Nagle plus delayed ACKs add ~40 ms
        # to replies written in more than one piece.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.owner._opened(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.owner._closed(self.connection)

    def _route(self, method: str, raw: bytes = b"") -> bool:
        """Answer a canned route (LoopbackServer.routes); False when none matches."""
        owner = self.server.owner
        route = owner.routes.get((method, self.path.split("?")[0]))
        if route is None:
            return False
        owner._arrived()
        try:
            if callable(route):
                status, answer = route(json.loads(raw or b"{}"))
            else:
                status, answer = 200, route
            self._send_plain(status, json.dumps(answer).encode())
        finally:
            owner._left()
        return True

    def do_GET(self) -> None:
        if self._route("GET"):
            return
        if self.path.rstrip("/").endswith("/models"):
            self._send_plain(200, json.dumps({"object": "list", "data": [{"id": "scripted", "object": "model"}]}).encode())
        else:
            self._send_plain(404, b'{"error": {"message": "not found"}}')

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self._route("POST", raw):
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_plain(404, b'{"error": {"message": "not found: only /v1/chat/completions"}}')
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send_plain(400, b'{"error": {"message": "request body is not JSON"}}')
            return
        owner = self.server.owner
        request = RecordedRequest(self.path, Headers(self.headers.items()), body)
        arrival = owner._arrived()
        self._counted = True
        try:
            try:
                reply = owner.respond(request)
            except Exception as exc:  # a broken responder must not kill the server
                reply = Reply(status=500, body=json.dumps({"error": {"message": f"responder failed: {exc!r}"}}))
            if isinstance(reply, RawReply):
                self._raw(reply)
                return
            if reply.delay > 0 and owner.stopping.wait(reply.delay):
                self.close_connection = True
                return
            try:
                self._reply(reply, bool(body.get("stream")), str(body.get("model") or "scripted"), arrival)
            except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
                self.close_connection = True  # the client went away (cancelled): fine
        finally:
            self._leave()

    def _leave(self) -> None:
        """No longer in flight; called before a stream's last bytes, since the
        client may send its next request the moment it has read them."""
        if getattr(self, "_counted", False):
            self._counted = False
            self.server.owner._left()

    def _reply(self, reply: Reply, streamed: bool, model: str, arrival: int = 0) -> None:
        plain = plain_body(reply, streamed)
        if plain is not None:
            self._send_plain(reply.status, plain[0], plain[1], reply.headers)
            return
        if not streamed:
            self._send_plain(200, json_body(reply, model), "application/json", reply.headers)
            return
        self.send_response(200)
        headers = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", **reply.headers}
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        stopping = self.server.owner.stopping
        owner = self.server.owner
        for n, event in enumerate(sse_events(reply, model)):
            if owner.interrupting and owner.arrivals != arrival and not event.startswith(b"data: [DONE]"):
                # llama-cpp-python's rule: a request arriving mid-stream ends
                # this one with [DONE] and no finish_reason.
                owner.interrupted += 1
                event = b"data: [DONE]\n\n"
                self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                break
            if reply.drop_after_chunks is not None and n >= reply.drop_after_chunks:
                self._drop()
                return
            if n and reply.chunk_delay > 0 and stopping.wait(reply.chunk_delay):
                self._drop()
                return
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            self.wfile.flush()
        self._leave()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _raw(self, reply: RawReply) -> None:
        self.close_connection = True
        try:
            self.send_response(reply.status)
            for name, value in {"Content-Type": reply.content_type, **reply.headers}.items():
                self.send_header(name, value)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            for piece in reply.pieces(self.server.owner.stopping):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            pass  # the client stopped reading: what these tests want

    def _send_plain(self, status: int, content: bytes, content_type: str = "application/json", extra: dict | None = None) -> None:
        self.send_response(status)
        headers = {"Content-Type": content_type, **(extra or {})}
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)
        self.wfile.flush()

    def _drop(self) -> None:
        """Really hang up mid-body, without the terminating chunk."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class LoopbackServer:
    """Context manager around a threaded HTTP server on 127.0.0.1:0."""

    def __init__(self, responder: Responder | None = None, routes: dict | None = None, interrupting: bool = False) -> None:
        self.responder: Responder = responder if responder is not None else Script()
        #: Canned answers by (method, path): a JSON value, or a function of
        #: the request body giving (status, JSON value). Lets one server
        #: stand in for llama-server (/props), llama-cpp-python
        #: (/openapi.json, /extras/tokenize/count), Ollama (/api/show).
        self.routes: dict = dict(routes or {})
        #: End a running stream with [DONE] and no finish_reason when another
        #: request arrives, as llama-cpp-python does by default.
        self.interrupting = interrupting
        self.arrivals = 0
        self.in_flight = 0
        self.peak_in_flight = 0
        self.interrupted = 0
        self.requests: list[RecordedRequest] = self.responder.requests if isinstance(self.responder, Script) else []
        self.stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._server = _Server(self)
        self.port = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name=f"loopback-{self.port}", daemon=True
        )
        self._thread.start()

    def respond(self, request: RecordedRequest) -> Reply:
        if not isinstance(self.responder, Script):
            with self._lock:
                self.requests.append(request)
        return self.responder(request)

    def _arrived(self) -> int:
        with self._lock:
            self.arrivals += 1
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            return self.arrivals

    def _left(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _opened(self, connection: socket.socket) -> None:
        with self._lock:
            self._connections.add(connection)

    def _closed(self, connection: socket.socket) -> None:
        with self._lock:
            self._connections.discard(connection)

    def close(self) -> None:
        """Stop accepting, wake sleeping replies, hang up open connections."""
        if self.stopping.is_set():
            return
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._thread.join(timeout=5)

    def __enter__(self) -> "LoopbackServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
