"""Play a run back from its ledger: rebuilt events at their recorded
relative times, with no model and no tools. Textual-free: the text replay
and the run screen both consume the same timeline.

The ledger does not hold streaming deltas one by one; each `model_response`
is re-streamed as ``ModelDelta`` chunks (reasoning, then content, then tool
call arguments) spread evenly between its request and its response, so a
replayed pane fills the way the live one did.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass
from typing import Callable, Iterable

from paicli_tui import events as ev
from paicli_tui.records.ledger import LedgerLine
from paicli_tui.records.rebuild import rebuild

CHUNK_CHARS = 24


@dataclass(frozen=True)
class Timed:
    at: float  # seconds after the first ledger line
    event: ev.Event
    line: int  # ledger line number (a delta carries its response's line)


def chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def deltas_of(response: ev.ModelResponse, size: int = CHUNK_CHARS) -> list[ev.ModelDelta]:
    out = [ev.ModelDelta(response.actor, response.call_id, "reasoning", part) for part in chunks(response.reasoning, size)]
    out += [ev.ModelDelta(response.actor, response.call_id, "content", part) for part in chunks(response.content, size)]
    for call in response.tool_calls:
        name = str(call.get("name", "")) if isinstance(call, dict) else ""
        arguments = str(call.get("arguments", "")) if isinstance(call, dict) else ""
        out += [ev.ModelDelta(response.actor, response.call_id, "tool_call", part, name) for part in chunks(arguments, size) or [""]]
    return out


def timeline(lines: Iterable[LedgerLine], warnings: list[str] | None = None, *, chunk_chars: int = CHUNK_CHARS) -> list[Timed]:
    """Every event of the ledger in play order. Times are made monotonic
    (a wall-clock step back never reorders the recorded sequence). Each event
    keeps its recorded ``ts``; a re-streamed delta gets the time it is played
    at, so the run screen shows recorded times even when played instantly."""
    keyed: list[tuple[float, int, int, int, Timed]] = []
    base: float | None = None
    previous = 0.0
    requested_at: dict[str, float] = {}
    for index, (line, event) in enumerate(rebuild(lines, warnings)):
        ts = line.data.get("ts")
        if isinstance(ts, (int, float)):
            base = ts if base is None else base
            previous = max(previous, ts - base)
        at = previous
        if isinstance(event, ev.ModelRequest):
            requested_at[event.call_id] = at
        if isinstance(event, ev.ModelResponse):
            parts = deltas_of(event, chunk_chars)
            start = requested_at.get(event.call_id, at - max(event.duration_s or 0.0, 0.0))
            start = min(max(start, 0.0), at)
            for k, delta in enumerate(parts):
                when = start + (at - start) * (k + 1) / (len(parts) + 1)
                if base is not None:  # a re-streamed piece happened when it is played
                    delta = dataclasses.replace(delta, ts=base + when)
                keyed.append((when, index, 0, k, Timed(when, delta, line.number)))
        keyed.append((at, index, 1, 0, Timed(at, event, line.number)))
    keyed.sort(key=lambda entry: entry[:4])
    return [entry[4] for entry in keyed]


def play(
    items: Iterable[Timed],
    sink: Callable[[ev.Event], None],
    *,
    speed: float | None = None,
    cancel: threading.Event | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> bool:
    """Hand each event to ``sink``. ``speed`` None plays instantly; 1.0 at the
    recorded pace, 2.0 twice as fast. Returns False when cancelled."""
    if speed is not None and speed <= 0:
        raise ValueError(f"speed must be above 0, got {speed}")
    stop = cancel or threading.Event()
    started = clock()
    for item in items:
        if stop.is_set():
            return False
        if speed is not None:
            wait = item.at / speed - (clock() - started)
            if wait > 0 and stop.wait(wait):
                return False
        sink(item.event)
    return True
