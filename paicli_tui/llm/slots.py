"""One model request per server slot.

A local model server answers as many requests at once as it has slots
(llama-cpp-python: one; llama-server: ``--parallel``). More than that does
not run faster: llama-cpp-python even cuts the running stream short
whenever another request arrives, the probe and tokenizer calls included.
So every request a process sends to one server passes a counting gate
sized to the server's slots; a request that would wait is announced first
(the pane shows "waiting for the model server"), and the time it waited is
handed back so the caller's deadline can start when the request is sent.

The gate is per server root (scheme, host and port), shared by every client
of the process: the chat clients of the agents of a run, the probe and the
tokenizer calls.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections import deque
from typing import Callable

import httpx

from paicli_tui.llm.types import CANCELLED_MESSAGE, ModelCancelled, ModelNotStarted

#: How often a queued request looks at its cancel event (seconds).
POLL_S = 0.05
#: Calls whose durations say how long the next one takes.
RECENT_CALLS = 8


class SlotGate:
    def __init__(self, slots: int) -> None:
        self.slots = max(1, slots)
        self.busy = 0
        self.waiting = 0
        #: The most requests ever in flight at once (what tests check).
        self.peak = 0
        self._cond = threading.Condition()
        self._durations: deque[float] = deque(maxlen=RECENT_CALLS)

    def record(self, seconds: float) -> None:
        """A finished call's time from sending to its last byte."""
        with self._cond:
            self._durations.append(seconds)

    def typical_s(self) -> float | None:
        """The median of the recent calls' durations; None before any."""
        with self._cond:
            return statistics.median(self._durations) if self._durations else None

    def resize(self, slots: int) -> None:
        """Take the slot count a probe found; waiters are woken to recheck."""
        with self._cond:
            self.slots = max(1, slots)
            self._cond.notify_all()

    def acquire(
        self,
        cancel: threading.Event | None = None,
        deadline: float | None = None,
        on_wait: Callable[[int], None] | None = None,
        need_s: float | None = None,
    ) -> float:
        """Take a slot; the seconds spent waiting for it. ``on_wait(slots)``
        is called once, before blocking, when the request has to queue.
        Raises ModelCancelled while queued, or ModelNotStarted once the
        ``deadline`` is nearer than ``need_s`` (what a call takes here): a
        call sent then would be cut before it answered."""
        started = time.monotonic()
        give_up = deadline - need_s if deadline is not None and need_s else deadline
        with self._cond:
            if self.busy >= self.slots:
                self.waiting += 1
                try:
                    if on_wait is not None:
                        on_wait(self.slots)
                    while self.busy >= self.slots:
                        if cancel is not None and cancel.is_set():
                            raise ModelCancelled(CANCELLED_MESSAGE)
                        if give_up is not None and time.monotonic() >= give_up:
                            raise ModelNotStarted(_not_started(deadline, need_s))
                        self._cond.wait(POLL_S)
                finally:
                    self.waiting -= 1
            self.busy += 1
            self.peak = max(self.peak, self.busy)
        return time.monotonic() - started

    def release(self) -> None:
        with self._cond:
            self.busy = max(0, self.busy - 1)
            self._cond.notify()

    def __enter__(self) -> "SlotGate":
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _not_started(deadline: float | None, need_s: float | None) -> str:
    if not need_s or deadline is None:
        return "not started: the time budget ran out while waiting for the model server"
    left = max(0.0, deadline - time.monotonic())
    return (f"not started: {left:.0f}s of the time budget left, less than a call takes on this model server "
            f"(about {need_s:.0f}s)")


_gates: dict[str, SlotGate] = {}
_gates_lock = threading.Lock()


def server_root(base_url: str) -> str:
    """scheme://host:port of a base URL: ``/v1`` and the root share a gate."""
    try:
        url = httpx.URL(base_url)
    except (httpx.InvalidURL, TypeError):
        return base_url
    return f"{url.scheme}://{url.host}:{url.port or (443 if url.scheme == 'https' else 80)}"


def gate_for(base_url: str, slots: int) -> SlotGate:
    """The process-wide gate of the server behind ``base_url``; the first
    caller sizes it (a probe may resize it later)."""
    key = server_root(base_url)
    with _gates_lock:
        gate = _gates.get(key)
        if gate is None:
            gate = _gates[key] = SlotGate(slots)
        return gate


def known_gate(base_url: str) -> SlotGate | None:
    with _gates_lock:
        return _gates.get(server_root(base_url))
