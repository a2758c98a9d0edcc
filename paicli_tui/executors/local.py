"""The local executor: a turn runs on the worker thread that took the task,
with the agent's tools pointed at the task's tree, exactly as before the
executor seam existed. Its events go straight to the agent's bus."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from paicli_tui.executors.base import TurnJob

if TYPE_CHECKING:
    from paicli_tui.agent.loop import AgentOutcome
    from paicli_tui.events import Event


class _Done:
    def __init__(self, outcome: "AgentOutcome") -> None:
        self._outcome = outcome

    def events(self, wait: float) -> "list[Event]":
        return []

    def finished(self) -> bool:
        return True

    def cancel(self) -> None:
        """Nothing left to cancel: the turn ran to its end in ``start``."""

    def result(self) -> "AgentOutcome":
        return self._outcome


class LocalExecutor:
    name = "local"
    where = "local"

    def start(self, job: TurnJob, cancel: threading.Event) -> _Done:
        return _Done(job.agent.run_turn(job.text, cancel=cancel, trusted_urls=job.trusted_urls))

    def close(self) -> None:
        """No resources: the worker threads belong to the plan executor."""
