"""Who settles a merge conflict, and how a task's attempts use isolation.

A conflict is settled inside the task's own runner, which waits for the
decision the way a tool call waits for an approval: the task holds its
worker slot and is not COMPLETED, so its dependents wait, while independent
tasks go on in the other slots."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable, Mapping, Protocol

from paicli_tui.workspace.merge import MergeOutcome
from paicli_tui.workspace.run import Attempt, IsolatedRun

ON_CONFLICT = ("rerun", "drop", "fail")
#: A task whose conflict was re-run this many times and conflicts again fails
#: under the headless default (``rerun`` once, then ``fail``).
RERUNS = 1


#: Where a conflict arose: merging a task into the run's integration state,
#: or applying the run's result onto a workspace the person edited meanwhile.
MERGE, APPLY = "merge", "apply"


@dataclass(frozen=True)
class Conflict:
    """What the person decides on: the task, the attempt and the files. At
    ``APPLY`` there is no attempt; "ours" is the person's file, "theirs" the
    run's, and only per-file decisions make sense (anything else keeps the
    person's files)."""

    task_id: str
    description: str
    attempt: Attempt | None
    outcome: MergeOutcome
    #: Reruns this task has had for a conflict so far.
    reruns: int = 0
    stage: str = MERGE

    def feedback(self) -> str:
        """The conflict as the re-run's instruction."""
        lines = [
            "Your previous change to this task could not be merged: it conflicts with work another task "
            "finished meanwhile. Your workspace now holds that work; make your change again on top of it.",
        ]
        for conflict in self.outcome.conflicts:
            lines.append(f"\nConflict in {conflict.path}: {conflict.message}")
            lines.extend(conflict.hunks())
        return "\n".join(lines)


@dataclass(frozen=True)
class Decision:
    """``rerun`` | ``drop`` | ``fail`` | ``resolve`` (with ``files``: per path
    "ours" (the integration side), "theirs" (the task's) or new bytes)."""

    choice: str
    files: Mapping[str, str | bytes | None] = field(default_factory=dict)


class ConflictResolver(Protocol):
    def decide(self, conflict: Conflict, cancel: threading.Event) -> Decision: ...


class HeadlessResolver:
    """``--on-conflict``: rerun (once, then fail), drop or fail; never waits.
    At the apply there is nothing to re-run: the person's files are kept,
    whatever was chosen, and the run's outcome names them."""

    def __init__(self, on_conflict: str = "rerun") -> None:
        if on_conflict not in ON_CONFLICT:
            raise ValueError(f"unknown --on-conflict {on_conflict!r}; expected one of: {', '.join(ON_CONFLICT)}")
        self.on_conflict = on_conflict

    def decide(self, conflict: Conflict, cancel: threading.Event) -> Decision:
        if conflict.stage == APPLY:
            return Decision("drop")
        if self.on_conflict == "rerun" and conflict.reruns >= RERUNS:
            return Decision("fail")
        return Decision(self.on_conflict)


@dataclass(frozen=True)
class Settled:
    """How an attempt's work ended up: ``merged``, ``empty`` (nothing to
    merge), ``dropped``, ``rerun`` (make the change again; ``feedback`` says
    why), ``failed`` (``error``) or ``cancelled``."""

    status: str
    feedback: str = ""
    error: str = ""
    merge: str = ""


class TaskIsolation:
    """The task runners' use of an IsolatedRun: an attempt's tree, and the
    merge with conflicts settled. ``hold`` marks the task CONFLICT (or back to
    RUNNING) through the executor so the ledger keeps the decision order."""

    def __init__(self, run: IsolatedRun, resolver: ConflictResolver,
                 hold: Callable[[str, str], None] | None = None) -> None:
        self.run = run
        self.resolver = resolver
        self.hold = hold
        self._reruns: dict[str, int] = {}
        self._lock = threading.Lock()

    def attempt(self, task_id: str, slot: str) -> Attempt:
        return self.run.attempt(task_id, slot)

    def diff(self, attempt: Attempt, result: str) -> str:
        return self.run.diff(attempt.base, result)

    def settle(self, attempt: Attempt, description: str, cancel: threading.Event,
               result: str | None = None) -> Settled:
        """Commit (unless ``result`` is given) and merge ``attempt``'s work,
        asking the resolver about a conflict."""
        result = result if result is not None else self.run.commit(attempt)
        merged = self.run.merge(attempt, result)
        while merged.status == "conflict":
            assert merged.outcome is not None
            with self._lock:
                reruns = self._reruns.get(attempt.task_id, 0)
            self._mark(attempt.task_id, "CONFLICT")
            decision = self.resolver.decide(
                Conflict(attempt.task_id, description, attempt, merged.outcome, reruns), cancel)
            if cancel.is_set():
                return Settled("cancelled", error="cancelled")
            if decision.choice == "resolve":
                merged = self.run.settle(attempt, merged, decision.files)
                continue
            files = tuple(merged.outcome.paths)
            self.run.decided(attempt, decision.choice, files)
            if decision.choice == "rerun":
                with self._lock:
                    self._reruns[attempt.task_id] = reruns + 1
                self._mark(attempt.task_id, "RUNNING")
                conflict = Conflict(attempt.task_id, description, attempt, merged.outcome, reruns)
                return Settled("rerun", feedback=conflict.feedback())
            if decision.choice == "drop":
                return Settled("dropped")
            return Settled("failed", error=f"merge conflict in {', '.join(files)}")
        return Settled(merged.status, merge=merged.merge)

    def _mark(self, task_id: str, status: str) -> None:
        if self.hold is not None:
            self.hold(task_id, status)
