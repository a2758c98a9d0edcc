"""What a run did, as evidence for its outcome: tool calls that ran and
files that changed.

A small local model often answers a task with prose ("The function greet
is renamed to welcome") and calls no tool, and a task stopped by its budget
still ends as a partial result; both used to end a plan as "COMPLETED",
exit 0, with nothing done. ``honest`` turns such a run into a partial one:
a plan or team run whose write or command steps made no tool call and
changed no file, or whose every agent was stopped by a limit. Read-only
plans (analysis, reading) need no evidence: prose is their result. ReAct
runs keep their outcome (a question needs no tool), with the evidence in
the headline."""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from paicli_tui import events as ev

if TYPE_CHECKING:
    from paicli_tui.session.live import RunOutcome

#: Plan task types whose result is a change, not an answer.
CHANGING_TYPES = frozenset({"FILE_WRITE", "COMMAND"})
#: Agents that plan and judge rather than do.
_NOT_DOERS = ("planner", "reviewer", "session", "engine", "react")


@dataclass
class Evidence:
    tool_calls: int = 0
    files: frozenset[str] = frozenset()
    changing_steps: int = 0
    finished: int = 0
    budget_cut: int = 0

    def headline(self) -> str:
        calls = f"{self.tool_calls} tool call{'' if self.tool_calls == 1 else 's'}"
        if not self.files:
            return f"{calls} · no files changed"
        names = sorted(self.files)
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        return f"{calls} · changed {shown}"


class EvidenceRecorder:
    """A bus subscriber collecting the evidence of the current run."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._now = Evidence()

    def __call__(self, event: Any) -> None:
        with self._lock:
            now = self._now
            if isinstance(event, ev.RunRequested):
                self._now = Evidence()
            elif isinstance(event, ev.ToolCallFinished) and event.ok:
                now.tool_calls += 1
            elif isinstance(event, ev.CheckpointSaved):
                now.files = now.files | {event.path}
            elif isinstance(event, ev.PlanProposed):
                tasks = event.plan.get("tasks") or event.plan.get("steps") or []
                now.changing_steps = sum(str(t.get("type", "")).upper() in CHANGING_TYPES for t in tasks
                                         if isinstance(t, dict))
            elif isinstance(event, ev.AgentFinished) and not event.actor.startswith(_NOT_DOERS):
                now.finished += 1
                now.budget_cut += event.status == "partial"

    def current(self) -> Evidence:
        with self._lock:
            return replace(self._now)


def honest(outcome: "RunOutcome", evidence: Evidence) -> "RunOutcome":
    """``outcome``, or a partial one when a completed plan or team run has
    nothing to show for its changing steps, or every agent was cut short."""
    if outcome.kind not in ("plan", "team") or not outcome.ok:
        return outcome
    nothing_done = evidence.changing_steps > 0 and evidence.tool_calls == 0 and not evidence.files
    all_cut = evidence.finished > 0 and evidence.budget_cut == evidence.finished
    if not (nothing_done or all_cut):
        return outcome
    why = "partial: nothing was changed" if nothing_done else "partial: every task was stopped by a limit"
    return replace(outcome, ok=False, status="PARTIAL", text=f"{why}\n{evidence.headline()}\n{outcome.text}")
