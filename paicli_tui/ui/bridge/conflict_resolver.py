"""The app's conflict resolver: a merge conflict waits for the person's
decision on the run screen the way a tool call waits for an approval.

``decide`` is called on the task's worker thread. It hands the conflict to
the UI through the event pump and blocks until the screen answers, the
task or run is cancelled, or the app closes (then the task fails: nothing
unreviewed is merged)."""

from __future__ import annotations

import threading
from concurrent.futures import Future, TimeoutError
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from paicli_tui.ui.bridge.approver import resolve
from paicli_tui.ui.bridge.event_pump import EventPump

if TYPE_CHECKING:
    from paicli_tui.workspace.resolver import Conflict, Decision

_POLL_S = 0.1


def _failed() -> "Decision":
    # Imported here: the isolation machinery behind it is not needed until a
    # run merges, and the first screen would pay for it.
    from paicli_tui.workspace.resolver import Decision

    return _failed()


@dataclass(frozen=True)
class ConflictPrompt:
    conflict: Conflict
    answer: Future = field(default_factory=Future, compare=False)


class UiConflictResolver:
    def __init__(self, pump: EventPump) -> None:
        self.pump = pump
        self._lock = threading.Lock()
        self._waiting: set[Future] = set()
        self._closed = False

    def decide(self, conflict: Conflict, cancel: threading.Event) -> Decision:
        prompt = ConflictPrompt(conflict)
        with self._lock:
            if self._closed:
                return _failed()
            self._waiting.add(prompt.answer)
        self.pump.put(prompt)
        try:
            while True:
                try:
                    return prompt.answer.result(timeout=_POLL_S)
                except TimeoutError:
                    if cancel.is_set():
                        resolve(prompt.answer, _failed())
        finally:
            with self._lock:
                self._waiting.discard(prompt.answer)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            waiting = list(self._waiting)
        for answer in waiting:
            resolve(answer, _failed())
