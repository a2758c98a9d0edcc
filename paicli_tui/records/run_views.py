"""A run's tasks, attempts and workers as plain data: what the run fold
keeps up to date, and what the run screen, the review tree and the report
read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from paicli_tui import events as ev
from paicli_tui.plan.model import Plan


@dataclass
class Tokens:
    """What model calls spent: tokens, calls and their cost."""

    prompt: int = 0
    completion: int = 0
    cached: int = 0
    calls: int = 0
    cost: float = 0.0
    #: Calls whose server sent no usage and that paicli did not count:
    #: the figures above leave them out.
    unreported: int = 0
    #: Calls whose tokens paicli counted (no usage from the server): ≈.
    estimated: int = 0
    #: Sums over the calls that measured them (time to first token, tok/s).
    ttft_s: float = 0.0
    ttft_calls: int = 0
    tokens_per_s: float = 0.0
    speed_calls: int = 0

    def add(self, response: ev.ModelResponse, cost: float) -> None:
        self.prompt += int(response.prompt_tokens or 0)
        self.completion += int(response.completion_tokens or 0)
        self.cached += int(response.cached_tokens or 0)
        self.calls += 1
        self.cost += cost
        self.estimated += response.usage_estimated
        self.unreported += response.usage_reported is False and not response.usage_estimated
        if response.ttft_s is not None:
            self.ttft_s += response.ttft_s
            self.ttft_calls += 1
        if response.tokens_per_s is not None:
            self.tokens_per_s += response.tokens_per_s
            self.speed_calls += 1

    def __iadd__(self, other: "Tokens") -> "Tokens":
        self.prompt += other.prompt
        self.completion += other.completion
        self.cached += other.cached
        self.calls += other.calls
        self.cost += other.cost
        self.unreported += other.unreported
        self.estimated += other.estimated
        self.ttft_s += other.ttft_s
        self.ttft_calls += other.ttft_calls
        self.tokens_per_s += other.tokens_per_s
        self.speed_calls += other.speed_calls
        return self

    def to_dict(self) -> dict:
        return {"prompt": self.prompt, "completion": self.completion, "cached": self.cached}


@dataclass(frozen=True)
class Verdict:
    approved: bool
    reviewer: str
    summary: str
    feedback: str
    notes: tuple[str, ...] = ()


@dataclass
class AttemptView:
    """One attempt of a task on a worker, from its dispatch to its end."""

    task_id: str
    number: int
    worker: str
    started: float
    ended: float | None = None
    #: running | completed | rejected (a retry followed) | failed | blocked | cancelled
    outcome: str = "running"
    review_started: float | None = None
    reviewer: str = ""
    verdict: Verdict | None = None
    report: tuple[str, str, str] | None = None  # status, result, reason
    tokens: int = 0
    version: int = 0
    #: The plan check's run (``check_ran``) and the evidence recorded for
    #: this attempt (``receipts``), when there were any.
    check: "ev.CheckRan | None" = None
    receipts: "ev.ReceiptsSent | None" = None

    def duration(self, now: float) -> float:
        return max(0.0, (self.ended if self.ended is not None else now) - self.started)


@dataclass
class TaskView:
    id: str
    description: str
    type: str = "ANALYSIS"
    dependencies: list[str] = field(default_factory=list)
    status: str = "PENDING"
    worker: str = ""
    attempt: int = 0
    started: float | None = None
    finished: float | None = None
    tokens: int = 0
    result: str = ""
    error: str = ""
    attempts: list[AttemptView] = field(default_factory=list)
    #: An approving reviewer's notes (P-5.6).
    notes: list[str] = field(default_factory=list)
    #: The plan version the task belongs to (ids restart after a replan).
    version: int = 0
    #: Everything the task's model calls spent, cost included (``tokens``
    #: is prompt + completion, the figure the run screen shows).
    spent: Tokens = field(default_factory=Tokens)
    #: With isolation: the last attempt's (files, added, removed) lines and
    #: whether its work reached the integration ref (docs/isolation.md).
    changed: tuple[int, int, int] | None = None
    merged: bool = False
    #: The last attempt's base and result commits in the shadow repository
    #: (its diff is ``base..result``); "" without isolation.
    base_commit: str = ""
    result_commit: str = ""
    #: Merge conflicts the task met, the files of the latest, and whether the
    #: person's decision settled one on the way to its merge.
    conflicts: int = 0
    conflict_files: tuple[str, ...] = ()
    resolved: bool = False
    #: The plan's check command for the task ("" for none).
    check: str = ""

    def elapsed(self, now: float) -> float | None:
        if self.started is None:
            return None
        return max(0.0, (self.finished if self.finished is not None else now) - self.started)

    @property
    def outcome(self) -> str:
        """What happened, in words: a task the cancel interrupted is
        ``cancelled`` (the engine records it SKIPPED with the error
        "cancelled"), one that never started is ``skipped``."""
        if self.status == "SKIPPED":
            return "cancelled" if self.started is not None and self.error == "cancelled" else "skipped"
        return self.status.lower()


@dataclass
class WorkerView:
    name: str
    step: str = ""
    attempt: int = 0
    reviewing: bool = False


def tasks_from_entries(entries: Iterable[Any]) -> list[TaskView]:
    """TaskViews from plan-dict entries; tolerant of the odd shapes an
    invalid hand-edited plan may have (the review tree shows those too)."""
    views = []
    for index, entry in enumerate(entries):
        entry = entry if isinstance(entry, dict) else {}
        raw_id = entry.get("id")
        deps = entry.get("dependencies")
        views.append(
            TaskView(
                id=raw_id if isinstance(raw_id, str) else f"#{index + 1}",
                description=entry.get("description") if isinstance(entry.get("description"), str) else "",
                type=str(entry.get("type") or "ANALYSIS").upper(),
                dependencies=[d for d in deps if isinstance(d, str)] if isinstance(deps, list) else [],
                check=entry.get("check") if isinstance(entry.get("check"), str) else "",
            )
        )
    return views


def tasks_from_plan(plan: Plan | dict) -> list[TaskView]:
    if isinstance(plan, Plan):
        return [
            TaskView(
                t.id, t.description, t.type.value, list(t.dependencies), t.status.value, result=t.result, error=t.error,
                check=t.check,
            )
            for t in plan.tasks
        ]
    key = "steps" if isinstance(plan.get("steps"), list) and plan.get("steps") else "tasks"
    return tasks_from_entries(plan.get(key) or [])
