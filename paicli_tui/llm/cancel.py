"""Prompt cancellation of a blocking HTTP call (P-1.3).

A worker thread blocked in ``recv`` does not wake when another thread merely
closes the socket, and a silent server may not send the next byte for
minutes. So every connection the client opens is wrapped to remember which
thread used it last, and a watcher thread shuts that socket down
(``shutdown`` does wake a blocked ``recv``) as soon as the call's
``threading.Event`` is set. The worker then sees end-of-stream, notices the
event, and raises ModelCancelled.

The same watcher enforces a call's deadline (the caller's time budget): once
it passes, the socket is shut down just as for a cancel, so neither a
server that sends nothing nor a wait for the first byte outlives the budget.

Transports without sockets (the scripted and demo transports) read the
event from the request extension ``CANCEL_EXTENSION`` and stop themselves.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any, Callable

import httpcore
import httpx

#: Request extension carrying the call's cancel Event to in-process transports.
CANCEL_EXTENSION = "paicli_cancel"

POLL_SECONDS = 0.02


class _TrackedStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream, users: dict[int, "_TrackedStream"]) -> None:
        self._inner = inner
        self._users = users

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self._users[threading.get_ident()] = self
        return self._inner.read(max_bytes, timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._users[threading.get_ident()] = self
        self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> "_TrackedStream":
        return _TrackedStream(self._inner.start_tls(ssl_context, server_hostname, timeout), self._users)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)

    def abort(self) -> None:
        sock = self._inner.get_extra_info("socket")
        if sock is None:
            return
        try:
            # The plain-socket method even for TLS sockets: SSLSocket.shutdown
            # would also drop its SSL object under the reading thread's feet.
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        except OSError:
            pass


class _TrackingBackend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner
        self.users: dict[int, _TrackedStream] = {}

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None, socket_options: Any = None) -> httpcore.NetworkStream:
        stream = _TrackedStream(self._inner.connect_tcp(host, port, timeout, local_address, socket_options), self.users)
        self.users[threading.get_ident()] = stream
        return stream

    def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> httpcore.NetworkStream:
        stream = _TrackedStream(self._inner.connect_unix_socket(path, timeout, socket_options), self.users)
        self.users[threading.get_ident()] = stream
        return stream

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def install_tracking(client: httpx.Client) -> _TrackingBackend | None:
    """Wrap the network backend of every connection pool of ``client``
    (the default one and any proxy mounts from the environment). httpx has
    no public hook for this, so on an httpx without these attributes we
    return None and cancellation falls back to closing the response."""
    backend = _TrackingBackend(httpcore.SyncBackend())
    transports = [getattr(client, "_transport", None), *getattr(client, "_mounts", {}).values()]
    installed = False
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        if pool is not None and hasattr(pool, "_network_backend"):
            pool._network_backend = backend
            installed = True
    return backend if installed else None


class _SharedWatcher:
    """One polling thread for every call in flight. A thread per call cost
    about half of a fast call's time (measured in bench/schedule.py); one
    shared poller costs a set insert and a removal per call.

    Calls add and remove their watch without a lock (a set's add, discard
    and copy are each atomic under the GIL): with a lock here, four worker
    threads fell into a convoy on it, one thread pre-empted while holding it
    and the others queueing, about four context switches per call
    (bench/schedule.py, parallelism 4). The lock only guards starting and
    ending the polling thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._watches: set["CancelWatch"] = set()
        self._running = False

    def add(self, watch: "CancelWatch") -> None:
        self._watches.add(watch)
        if not self._running and self._claim():
            threading.Thread(target=self._run, name="paicli-cancel-watch", daemon=True).start()

    def remove(self, watch: "CancelWatch") -> None:
        self._watches.discard(watch)

    def _stop_if_idle(self) -> bool:
        """True when the polling thread may end: no call is in flight."""
        if self._watches:
            return False
        with self._lock:
            self._running = False
        # A watch added between the check and the flag saw the flag still
        # set and started no poller: look once more, and poll on if so.
        return not self._watches or not self._claim()

    def _claim(self) -> bool:
        """Become the one polling thread; False when one is running."""
        with self._lock:
            if self._running:
                return False
            self._running = True
            return True

    def _run(self) -> None:
        while True:
            time.sleep(POLL_SECONDS)
            if self._stop_if_idle():
                return
            fired = [watch for watch in self._watches.copy() if watch.stop_requested()]
            # Keep firing each tick until the call ends: the connection may
            # not exist yet (still connecting) when the event is first seen.
            for watch in fired:
                watch.fire()


_WATCHER = _SharedWatcher()


class CancelWatch:
    """While active, aborts the calling thread's connection once ``cancel``
    is set or the monotonic ``deadline`` passes; ``fallback`` (e.g. closing
    the response) runs when there is no tracked socket. Use as a context
    manager around the blocking part."""

    def __init__(
        self, cancel: threading.Event | None, backend: _TrackingBackend | None, deadline: float | None = None
    ) -> None:
        self._cancel = cancel
        self._deadline = deadline
        self._backend = backend
        self._owner = threading.get_ident()
        self._lock = threading.Lock()
        self._active = False
        self.fallback: Callable[[], None] | None = None

    def __enter__(self) -> "CancelWatch":
        if self._backend is not None:
            # A stale entry would point at an idle pooled connection.
            self._backend.users.pop(self._owner, None)
        if self._cancel is None and self._deadline is None:
            return self
        self._active = True
        _WATCHER.add(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _WATCHER.remove(self)
        with self._lock:
            self._active = False
            if self._backend is not None:
                self._backend.users.pop(self._owner, None)

    def stop_requested(self) -> bool:
        if self._cancel is not None and self._cancel.is_set():
            return True
        return self._deadline is not None and time.monotonic() >= self._deadline

    def fire(self) -> None:
        with self._lock:
            if self._active:
                self._abort()

    def _abort(self) -> None:
        stream = self._backend.users.get(self._owner) if self._backend else None
        if stream is not None:
            stream.abort()
        elif self.fallback is not None:
            try:
                self.fallback()
            except Exception:  # noqa: BLE001 - best effort from a foreign thread
                pass
