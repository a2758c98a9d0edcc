"""TaskCompleted hooks on a /plan task: a task whose agent finished is
checked, and a failing check sends the reason back to the same agent (its
history kept) as retry feedback, at most ``MAX_ATTEMPTS`` turns in all. A
task still failing its check fails with the hook's reason, which the
replanner then reads."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from paicli_tui.events import EventBus, StepRetry, TaskDispatched

if TYPE_CHECKING:
    from paicli_tui.hooks.runner import HookRunner

#: The first turn plus at most two retries, as a /team step gets.
MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class CheckedResult:
    """The task's last turn (``status``, ``text`` and ``reason`` as the
    agent gave them) and, when its checks still failed, why."""

    status: str
    text: str
    reason: str = ""
    failed_check: str = ""
    context: str = ""


def retry_text(reason: str) -> str:
    return ("A check on your result failed (a hook the person configured):\n"
            f"{reason}\n\nFix what it names, then answer again with your complete result.")


def checked_turns(hooks: "HookRunner | None", first_turn, retry_turn: Callable[[str], object], *, task, goal: str,
                  worker: str, bus: EventBus, cancel: threading.Event) -> CheckedResult:
    """Run ``first_turn()`` and, while its result is final and a
    TaskCompleted hook fails it, ``retry_turn(feedback)``. Both return an
    agent outcome (``status``, ``text``, ``reason``)."""
    outcome = first_turn()
    if hooks is None or not hooks.matching("TaskCompleted", "plan"):
        return CheckedResult(outcome.status, outcome.text, outcome.reason)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        if outcome.status != "final" or cancel.is_set():
            return CheckedResult(outcome.status, outcome.text, outcome.reason)
        verdict = hooks.run("TaskCompleted", {
            "kind": "plan", "task_id": task.id, "description": task.description, "type": task.type.value,
            "goal": goal, "attempt": attempt, "worker": worker, "result": outcome.text,
        }, match="plan", actor=task.id, cancel=cancel)
        if not verdict.blocked:
            return CheckedResult(outcome.status, outcome.text, outcome.reason, context=verdict.context)
        if attempt == MAX_ATTEMPTS:
            return CheckedResult(outcome.status, outcome.text, outcome.reason, failed_check=verdict.reason)
        bus.publish(StepRetry(task.id, task.id, attempt + 1, f"hook: {verdict.reason}"))
        bus.publish(TaskDispatched(task.id, task.id, worker, attempt + 1))
        outcome = retry_turn(retry_text(verdict.reason))
    raise AssertionError("unreachable: the last attempt returns")
