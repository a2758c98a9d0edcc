"""The base event and the thread-safe bus that fans events out."""

from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

Subscriber = Callable[["Event"], None]


@dataclass(frozen=True)
class Event:
    name: ClassVar[str] = "event"
    actor: str
    #: When the event happened (Unix seconds): stamped by the bus as it is
    #: published unless the event already carries one (a replayed event keeps
    #: its recorded time). Keyword-only, and left out of equality and of the
    #: payload: the ledger writes it as the line's ``ts``.
    ts: float | None = field(default=None, kw_only=True, compare=False, repr=False)

    def payload(self) -> dict[str, Any]:
        """Fields other than ``actor`` and ``ts``, as JSON-ready data."""
        data = dataclasses.asdict(self)
        data.pop("actor", None)
        data.pop("ts", None)
        return data


class EventBus:
    """Thread-safe fan-out. ``mode`` is the run mode stamped into ledger lines
    (react / plan / team); it is set by whoever starts a run. With a
    ``redactor`` every subscriber gets events with the session's secrets
    replaced (issue 12)."""

    def __init__(
        self, session_id: str, mode: str = "react", *, redactor=None, clock: Callable[[], float] = time.time
    ) -> None:
        self.session_id = session_id
        self.mode = mode
        #: What stamps ``Event.ts`` (tests pass a fake clock for stable times).
        self.clock = clock
        self._subscribers: list[Subscriber] = []
        self._lock = threading.Lock()
        # A Redactor (paicli_tui.policy.redaction) that every event passes before
        # any subscriber sees it; None when the session knows no secret.
        self._redactor = redactor if redactor else None

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        with self._lock:
            self._subscribers = [*self._subscribers, subscriber]

        def unsubscribe() -> None:
            with self._lock:
                self._subscribers = [s for s in self._subscribers if s is not subscriber]

        return unsubscribe

    def publish(self, event: Event) -> None:
        if self._redactor is not None:
            self._redactor.filter(event, self._deliver)
        else:
            self._deliver(event)

    def _deliver(self, event: Event) -> None:
        # Stamped here, after the redactor, so the pieces it re-emits get a
        # time too. The event is frozen for its readers; the bus is its writer.
        if event.ts is None:
            object.__setattr__(event, "ts", self.clock())
        # Copy-on-write list: publishing takes no lock on the hot path.
        for subscriber in self._subscribers:
            subscriber(event)
