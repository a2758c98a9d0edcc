"""The executor seam: start a turn, stream its events, cancel it, collect it.

A task's agent works in turns (the first message, a hook's feedback, a
reviewer's feedback). Each turn is one job: the agent with its history, the
text, and the task's tree. Locally the turn runs on the calling worker
thread; elsewhere the tree travels as git objects and comes back the same
way, so merge-back and review never know where it ran."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from paicli_tui.agent.loop import Agent, AgentOutcome
    from paicli_tui.events import Event, EventBus
    from paicli_tui.tools.trusted_urls import TrustedUrls
    from paicli_tui.workspace.run import Attempt, IsolatedRun

#: How long a driver waits for events before it looks at the cancel flag again.
STREAM_WAIT_S = 0.1


class ExecutorUnavailable(RuntimeError):
    """The executor cannot be used (cluster unreachable, extra not installed);
    the message is one line that says what and where."""


@dataclass(frozen=True)
class TurnJob:
    """One turn of a task's agent. ``tree`` and ``run`` are the task's
    isolated attempt; without them the turn can only run locally."""

    task_id: str
    agent: "Agent"
    text: str | None
    trusted_urls: "TrustedUrls | None" = None
    tree: "Attempt | None" = None
    run: "IsolatedRun | None" = None


class RunningTurn(Protocol):
    def events(self, wait: float) -> "list[Event]":
        """The events that arrived since the last call (waits up to ``wait``
        seconds for the first one); ``[]`` when there are none."""

    def finished(self) -> bool: ...

    def cancel(self) -> None: ...

    def result(self) -> "AgentOutcome":
        """The turn's outcome, once finished; the agent's history and the
        task's tree then hold what the turn did."""


class Executor(Protocol):
    #: ``local`` or ``ray``.
    name: str
    #: Where tasks run, for the run's header and its ledger ("local", "ray @ 10.0.0.5:6379").
    where: str

    def start(self, job: TurnJob, cancel: threading.Event) -> RunningTurn: ...

    def close(self) -> None: ...


def run_turn(executor: Executor, job: TurnJob, cancel: threading.Event, bus: "EventBus | None") -> "AgentOutcome":
    """Run one turn where ``executor`` puts it, publishing its events on
    ``bus`` as they arrive (the panes stream) and cancelling it when
    ``cancel`` is set."""
    running = executor.start(job, cancel)
    asked = False
    while not running.finished():
        _publish(bus, running.events(STREAM_WAIT_S))
        if cancel.is_set() and not asked:
            running.cancel()
            asked = True
    _publish(bus, running.events(0))
    return running.result()


def _publish(bus: "EventBus | None", events: "list[Event]") -> None:
    if bus is not None:
        for event in events:
            bus.publish(event)
