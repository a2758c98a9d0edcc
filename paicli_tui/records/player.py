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


#: Called before a wait of this many recorded seconds or more: (the next
#: item, the recorded seconds of the gap).
LONG_GAP_S = 3.0
GapStarted = Callable[[Timed, float], None]


def play(
    items: Iterable[Timed],
    sink: Callable[[ev.Event], None],
    *,
    speed: float | None = None,
    cancel: threading.Event | None = None,
    clock: Callable[[], float] = time.monotonic,
    skip: "Skip | None" = None,
    on_gap: GapStarted | None = None,
) -> bool:
    """Hand each event to ``sink``. ``speed`` None plays instantly; 1.0 at the
    recorded pace, 2.0 twice as fast. A long gap is announced to ``on_gap``
    first, and ``skip.now()`` cuts the current wait short (the rest plays
    at its pace from there). Returns False when cancelled."""
    if speed is not None and speed <= 0:
        raise ValueError(f"speed must be above 0, got {speed}")
    stop = cancel or threading.Event()
    started = clock()
    previous_at = 0.0
    for item in items:
        if stop.is_set():
            return False
        if speed is not None:
            wait = item.at / speed - (clock() - started)
            if wait > 0:
                if on_gap is not None and item.at - previous_at >= LONG_GAP_S:
                    on_gap(item, item.at - previous_at)
                if skip is None:
                    if stop.wait(wait):
                        return False
                else:
                    skip.arm(stop)
                    skip.woken.wait(wait)
                    if stop.is_set():
                        return False
                    if skip.disarm():  # skipped: the recording goes on from here
                        started = clock() - item.at / speed
        previous_at = item.at
        sink(item.event)
    return True


class Skip:
    """Cuts the player's current wait short, from another thread; whoever
    stops the player (sets its ``cancel``) calls ``wake`` too."""

    def __init__(self) -> None:
        self.woken = threading.Event()
        self._lock = threading.Lock()
        self._waiting = False
        self._skipped = False

    def arm(self, stop: threading.Event) -> None:
        with self._lock:
            self._waiting, self._skipped = True, False
            self.woken.clear()
            if stop.is_set():
                self.woken.set()

    def now(self) -> bool:
        """Skip the wait under way; False when the player is not waiting."""
        with self._lock:
            if not self._waiting:
                return False
            self._skipped = True
            self.woken.set()
            return True

    def wake(self) -> None:
        """The player stops: end the wait."""
        self.woken.set()

    def disarm(self) -> bool:
        with self._lock:
            self._waiting = False
            return self._skipped
