"""The app's side of P-7.4: an ``Approver`` whose answers come from a dialog.

``request`` is called on engine threads. It hands the request to the UI
through the event pump (the same queue the events travel) and blocks on a
Future until the dialog answers; several threads may ask at once, and the
app shows their requests one after another.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass, field

from paicli_tui.policy.approval import ApprovalAnswer, ApprovalRequest, Decision
from paicli_tui.ui.bridge.event_pump import EventPump


@dataclass(frozen=True)
class ApprovalPrompt:
    """An approval the UI must show; resolving ``answer`` releases the engine."""

    request: ApprovalRequest
    answer: Future = field(default_factory=Future, compare=False)


class UiApprover:
    """Blocks engine threads until the person answers in the dialog."""

    denial_reason = "denied by the user"

    def __init__(self, pump: EventPump | None = None) -> None:
        self.pump = pump or EventPump()
        self._lock = threading.Lock()
        self._waiting: set[Future] = set()
        self._closed = False

    def request(self, request: ApprovalRequest) -> "Decision | ApprovalAnswer":
        prompt = ApprovalPrompt(request)
        with self._lock:
            if self._closed:
                return Decision.NO
            self._waiting.add(prompt.answer)
        self.pump.put(prompt)
        try:
            return prompt.answer.result()
        finally:
            with self._lock:
                self._waiting.discard(prompt.answer)

    def deny_all(self) -> None:
        """Answer NO to every waiting request (the app is closing, or the
        person cancelled the turn)."""
        with self._lock:
            waiting = list(self._waiting)
        for answer in waiting:
            resolve(answer, Decision.NO)

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self.deny_all()


def resolve(answer: Future, decision: "Decision | ApprovalAnswer") -> None:
    """Set the answer unless someone already did (a dialog and a cancel may race)."""
    try:
        answer.set_result(decision)
    except InvalidStateError:
        pass
