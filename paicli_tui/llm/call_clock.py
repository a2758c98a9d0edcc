"""Where a model call's time went: queued for a server slot, waiting for
the first token (prompt processing), generating. Recorded per call in
``model_response`` (``queued_s``, ``ttft_s``, ``tokens_per_s``) so the
panes and ``paicli report`` can show why a local model is slow.

The clock counts the deltas it hands on: llama.cpp's servers send one
token per chunk, which makes the count a fair token figure for a server
that reports no usage."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from paicli_tui import events as ev
from paicli_tui.llm.types import Delta, DeltaCallback

if TYPE_CHECKING:
    from paicli_tui.events import EventBus


class CallClock:
    __slots__ = ("queued_s", "sent_at", "first_at", "last_at", "deltas")

    def __init__(self) -> None:
        self.queued_s = 0.0
        self.sent_at = time.monotonic()
        self.first_at: float | None = None
        self.last_at: float | None = None
        self.deltas = 0

    def sent(self) -> None:
        """A new attempt left: a retried call measures its last attempt."""
        self.sent_at = time.monotonic()
        self.first_at = None
        self.deltas = 0

    def ttft_s(self) -> float | None:
        return None if self.first_at is None else round(self.first_at - self.sent_at, 3)

    def tokens_per_s(self, completion_tokens: int) -> float | None:
        """Generation speed after the first token; None when too short to tell."""
        if self.first_at is None or self.last_at is None:
            return None
        span = self.last_at - self.first_at
        tokens = completion_tokens or self.deltas
        if span <= 0.01 or tokens < 2:
            return None
        return round((tokens - 1) / span, 1)


def emitter(on_delta: DeltaCallback | None, bus: "EventBus | None", agent: str, call_id: str, clock: CallClock):
    """One function per call that hands a Delta to the callback and the bus
    and marks the clock; built once so the per-chunk path has no branches
    to re-evaluate."""
    ModelDelta = ev.ModelDelta
    publish = bus.publish if bus is not None else None
    monotonic = time.monotonic

    def emit(delta: Delta) -> None:
        now = monotonic()
        if clock.first_at is None:
            clock.first_at = now
        clock.last_at = now
        clock.deltas += 1
        if on_delta is not None:
            on_delta(delta)
        if publish is not None:
            publish(ModelDelta(actor=agent, call_id=call_id, kind=delta.kind, text=delta.text, tool=delta.tool))

    return emit
