"""The one hand-over point between engine threads and the UI thread (P-7.6).

Engine threads call :meth:`EventPump.put` (it is subscribed to the session's
bus); the first item after a drain calls the pump's waker, and the app then
drains the pump within a frame and paints what it gets in one pass. With
nothing queued nothing wakes: an idle app costs no CPU. ``put`` never waits for the UI: it takes a short lock, and
consecutive deltas of one actor's stream are merged on the spot, so a fast
model costs one string append per token instead of one queued item.

The pump knows nothing about Textual.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from paicli_tui import events as ev
from paicli_tui.ui.bridge.pump_items import TextRun

#: Beyond this many queued items (a UI that stopped draining), the oldest
#: streamed text runs are dropped first; other events are kept.
MAX_PENDING = 20_000


class EventPump:
    """Thread-safe, non-blocking queue of engine events and UI requests."""

    def __init__(self, max_pending: int = MAX_PENDING) -> None:
        self._lock = threading.Lock()
        self._pending: list[Any] = []
        # actor → the TextRun at the end of that actor's queued items, so the
        # next delta of the same stream extends it even when other actors'
        # events were queued in between.
        self._open: dict[str, TextRun] = {}
        self._max_pending = max_pending
        self._waker: Callable[[], None] | None = None
        self.dropped = 0

    def set_waker(self, waker: Callable[[], None] | None) -> None:
        """``waker`` is called (from the putting thread, outside the lock)
        when an item arrives in an empty pump: once per drain at most."""
        self._waker = waker

    def put(self, item: Any) -> None:
        """Queue an event (or any UI item). Safe from any thread; never blocks
        on the UI."""
        with self._lock:
            was_empty = not self._pending
            if isinstance(item, ev.ModelDelta):
                run = self._open.get(item.actor)
                if run is not None and run.call_id == item.call_id and run.kind == item.kind:
                    run.parts.append(item.text)
                    run.ts = item.ts
                    return
                run = TextRun(item.actor, item.call_id, item.kind, item.tool, [item.text], item.ts)
                self._open[item.actor] = run
                self._pending.append(run)
            else:
                actor = getattr(item, "actor", None)
                if actor is not None:
                    self._open.pop(actor, None)
                self._pending.append(item)
            if len(self._pending) > self._max_pending:
                self._shed()
        waker = self._waker
        if was_empty and waker is not None:
            waker()

    def drain(self) -> list[Any]:
        """Everything queued since the last drain, in arrival order per actor."""
        with self._lock:
            items, self._pending = self._pending, []
            self._open.clear()
        return items

    def __len__(self) -> int:
        with self._lock:
            return len(self._pending)

    def _shed(self) -> None:
        # Only text is dropped: losing a ToolCallFinished or an approval
        # request would leave the UI wrong, losing old tokens only shortens it.
        for i, item in enumerate(self._pending):
            if isinstance(item, TextRun):
                del self._pending[i]
                if self._open.get(item.actor) is item:
                    del self._open[item.actor]
                self.dropped += 1
                return
