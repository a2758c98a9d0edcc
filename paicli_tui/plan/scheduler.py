"""Scheduling policies for a plan's tasks (P-3.3, P-3.4). Pure: no threads.

A scheduler is told which tasks finished and answers "what may start now,
given this many free slots". The executor owns the threads; the scheduler only
decides. Both policies dispatch a task only when every dependency is COMPLETED
(the plan's statuses are the truth) and never hand out more than the free
slots, so the same object drives the real executor, the bench and the
simulations in the tests.

- ``batch``: the original rounds. Take every executable task as one round, run
  it to completion (at most ``free`` at a time), then recompute.
- ``ready``: dispatch a task the moment its dependencies complete. When more
  tasks are ready than slots are free, prefer the longest remaining dependency
  chain (by estimated duration when estimates are given, else by task count),
  then the plan's topological order.
"""

from __future__ import annotations

import heapq
from abc import ABC, abstractmethod
from typing import Mapping

from paicli_tui.plan.model import Plan, TaskStatus

POLICIES = ("ready", "batch")


def remaining_chain(plan: Plan, estimates: Mapping[str, float] | None = None) -> dict[str, float]:
    """For each task, the length of the longest chain from it to the end of
    the plan, itself included: a task count, or a duration sum with estimates."""
    children: dict[str, list[str]] = {tid: [] for tid in plan.ids}
    for task in plan.tasks:
        for dep in set(task.dependencies):
            children[dep].append(task.id)
    return _chain_lengths(plan.topological_order(), children, estimates)


def _chain_lengths(
    order: list[str], children: Mapping[str, list[str]], estimates: Mapping[str, float] | None
) -> dict[str, float]:
    chain: dict[str, float] = {}
    for tid in reversed(order):
        own = estimates.get(tid, 1.0) if estimates is not None else 1.0
        chain[tid] = own + max([chain[child] for child in children[tid]], default=0.0)
    return chain


def critical_path(plan: Plan, durations: Mapping[str, float]) -> float:
    """The longest duration-weighted dependency chain of the plan."""
    return max(remaining_chain(plan, durations).values(), default=0.0)


def makespan_lower_bound(plan: Plan, durations: Mapping[str, float], parallelism: int) -> float:
    """No schedule can beat the critical path nor the total work spread evenly."""
    total = sum(durations.get(tid, 1.0) for tid in plan.ids)
    return max(critical_path(plan, durations), total / parallelism)


class Scheduler(ABC):
    """Shared bookkeeping: which PENDING tasks have all dependencies done."""

    policy = ""

    def __init__(self, plan: Plan, estimates: Mapping[str, float] | None = None) -> None:
        self._plan = plan
        order = plan.topological_order()
        self._position = {tid: i for i, tid in enumerate(order)}
        completed = {task.id for task in plan.tasks if task.status is TaskStatus.COMPLETED}
        self._children: dict[str, list[str]] = {tid: [] for tid in order}
        self._unmet: dict[str, int] = {}
        for task in plan.tasks:
            deps = set(task.dependencies)
            for dep in deps:
                self._children[dep].append(task.id)
            self._unmet[task.id] = len(deps - completed)
        self._priority = _chain_lengths(order, self._children, estimates)
        self._ready: list[tuple[float, int, str]] = []
        for tid in order:
            if self._unmet[tid] == 0 and plan.task(tid).status is TaskStatus.PENDING:
                self._push(tid)

    def _push(self, tid: str) -> None:
        heapq.heappush(self._ready, (-self._priority[tid], self._position[tid], tid))

    def finished(self, task_id: str) -> None:
        """Record that ``task_id`` ended; its plan status must already be set.
        Only a COMPLETED task releases its dependents."""
        if self._plan.task(task_id).status is not TaskStatus.COMPLETED:
            return
        for child in self._children[task_id]:
            self._unmet[child] -= 1
            if self._unmet[child] == 0 and self._plan.task(child).status is TaskStatus.PENDING:
                self._push(child)

    def _pop_ready(self) -> str | None:
        # Entries go stale when a waiting task is skipped; drop them lazily.
        while self._ready:
            _, _, tid = heapq.heappop(self._ready)
            if self._plan.task(tid).status is TaskStatus.PENDING:
                return tid
        return None

    @abstractmethod
    def select(self, free: int) -> list[str]:
        """Task ids to dispatch now, at most ``free`` of them. The caller must
        mark each one RUNNING (or otherwise non-PENDING) before calling again."""


class ReadyScheduler(Scheduler):
    policy = "ready"

    def select(self, free: int) -> list[str]:
        picked: list[str] = []
        while len(picked) < free:
            tid = self._pop_ready()
            if tid is None:
                break
            picked.append(tid)
        return picked


class BatchScheduler(Scheduler):
    policy = "batch"

    def __init__(self, plan: Plan, estimates: Mapping[str, float] | None = None) -> None:
        super().__init__(plan, estimates)
        self._round: list[str] = []  # still to dispatch, in topological order
        self._in_flight: set[str] = set()

    def finished(self, task_id: str) -> None:
        self._in_flight.discard(task_id)
        super().finished(task_id)

    def select(self, free: int) -> list[str]:
        self._round = [tid for tid in self._round if self._plan.task(tid).status is TaskStatus.PENDING]
        if not self._round and not self._in_flight:
            ready: list[str] = []
            while (tid := self._pop_ready()) is not None:
                ready.append(tid)
            self._round = sorted(ready, key=self._position.__getitem__)
        picked, self._round = self._round[:free], self._round[free:]
        self._in_flight.update(picked)
        return picked


def make_scheduler(policy: str, plan: Plan, estimates: Mapping[str, float] | None = None) -> Scheduler:
    if policy == "ready":
        return ReadyScheduler(plan, estimates)
    if policy == "batch":
        return BatchScheduler(plan, estimates)
    raise ValueError(f"unknown schedule policy {policy!r}; expected one of: {', '.join(POLICIES)}")


def simulate_makespan(
    plan: Plan,
    durations: Mapping[str, float],
    parallelism: int,
    policy: str,
    estimates: Mapping[str, float] | None = None,
) -> tuple[float, list[tuple[float, float, str]]]:
    """Run ``policy`` on a simulated clock where every task completes after its
    duration. Returns the makespan and the (start, end, id) intervals. Works on
    a copy of the statuses: ``plan`` is left as it was."""
    saved = {task.id: task.status for task in plan.tasks}
    try:
        scheduler = make_scheduler(policy, plan, estimates)
        running: list[tuple[float, int, str]] = []
        intervals: list[tuple[float, float, str]] = []
        now = 0.0
        sequence = 0
        while True:
            for tid in scheduler.select(parallelism - len(running)):
                plan.task(tid).status = TaskStatus.RUNNING
                end = now + durations.get(tid, 1.0)
                heapq.heappush(running, (end, sequence, tid))
                sequence += 1
                intervals.append((now, end, tid))
            if not running:
                return now, intervals
            now, _, tid = heapq.heappop(running)
            plan.task(tid).status = TaskStatus.COMPLETED
            scheduler.finished(tid)
    finally:
        for task in plan.tasks:
            task.status = saved[task.id]
