"""Plan and task model (P-3.1) with the DAG queries every scheduler uses."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable, Protocol


class TaskType(str, Enum):
    FILE_READ = "FILE_READ"
    FILE_WRITE = "FILE_WRITE"
    COMMAND = "COMMAND"
    ANALYSIS = "ANALYSIS"
    VERIFICATION = "VERIFICATION"


class TaskStatus(str, Enum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    SKIPPED = "SKIPPED"
    BLOCKED = "BLOCKED"  # team steps only
    #: Its work could not be merged; waits for a decision (not terminal).
    CONFLICT = "CONFLICT"


#: Statuses a task never leaves: the run has moved past it. Listed, not
#: derived as "everything but PENDING and RUNNING", so a status added later
#: (a merge conflict the person resolves, say) counts as unfinished until
#: someone decides here that it ends the task.
TERMINAL_STATUSES: frozenset[str] = frozenset(
    status.value for status in (TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.SKIPPED, TaskStatus.BLOCKED)
)


class HasDependencies(Protocol):
    id: str
    dependencies: list[str]


def dependents_of(task_id: str, tasks: Iterable[HasDependencies]) -> list[str]:
    """Tasks that list ``task_id`` as a direct dependency, in the order given."""
    return [task.id for task in tasks if task_id in task.dependencies]


class PlanStatus(str, Enum):
    CREATED = "CREATED"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"


@dataclass
class Task:
    id: str
    description: str
    type: TaskType = TaskType.ANALYSIS
    dependencies: list[str] = field(default_factory=list)
    status: TaskStatus = TaskStatus.PENDING
    result: str = ""
    error: str = ""
    #: The id the planner wrote before renumbering (for messages and diffs).
    original_id: str = ""
    #: Set when the planner wrote a ``type`` we did not recognise (P-3.2 rule 6).
    type_warning: str = ""
    #: The approving reviewer's notes on a team step (issues it still saw).
    notes: list[str] = field(default_factory=list)
    #: A shell command that proves the task done (exit 0), run in the
    #: task's tree after its agent reports completion; "" for none.
    check: str = ""
    #: Why the planner's check was dropped (it was not a command line).
    check_warning: str = ""

    def to_dict(self) -> dict:
        data = {
            "id": self.id,
            "description": self.description,
            "type": self.type.value,
            "dependencies": list(self.dependencies),
        }
        if self.check:
            data["check"] = self.check
        return data


@dataclass
class Plan:
    """Tasks in array order. ``dependents`` and the orders are derived."""

    tasks: list[Task]
    goal: str = ""
    summary: str = ""
    status: PlanStatus = PlanStatus.CREATED

    def __post_init__(self) -> None:
        self._index = {task.id: task for task in self.tasks}
        self._order_key: tuple | None = None
        self._order: list[str] = []

    def reindex(self) -> None:
        """Call after changing the task list or ids in place."""
        self._index = {task.id: task for task in self.tasks}

    def task(self, task_id: str) -> Task:
        return self._index[task_id]

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._index

    @property
    def ids(self) -> list[str]:
        return [task.id for task in self.tasks]

    def dependents(self, task_id: str) -> list[str]:
        """Tasks that list ``task_id`` as a direct dependency, in array order."""
        return dependents_of(task_id, self.tasks)

    def transitive_dependents(self, task_id: str) -> list[str]:
        """Every task downstream of ``task_id``, in topological order."""
        found: set[str] = set()
        frontier = [task_id]
        while frontier:
            current = frontier.pop()
            for child in self.dependents(current):
                if child not in found:
                    found.add(child)
                    frontier.append(child)
        return [tid for tid in self.topological_order() if tid in found]

    def topological_order(self) -> list[str]:
        """Kahn's algorithm; among ready tasks the earliest in array order
        goes first (P-3.3). Assumes the plan is acyclic (the parser checks)."""
        # Tasks and dependencies are edited in place, so the cached order is
        # keyed on the whole shape; building the key costs a fraction of the
        # sort, and a run asks for the order several times.
        key = tuple((task.id, tuple(task.dependencies)) for task in self.tasks)
        if key != self._order_key:
            self._order = self._sorted_order()
            self._order_key = key
        return list(self._order)

    def _sorted_order(self) -> list[str]:
        position = {task.id: i for i, task in enumerate(self.tasks)}
        remaining = {task.id: len(set(task.dependencies)) for task in self.tasks}
        children: dict[str, list[str]] = {task.id: [] for task in self.tasks}
        for task in self.tasks:
            for dep in set(task.dependencies):
                children[dep].append(task.id)
        ready = [(position[tid], tid) for tid, count in remaining.items() if count == 0]
        heapq.heapify(ready)
        order: list[str] = []
        while ready:
            _, tid = heapq.heappop(ready)
            order.append(tid)
            for child in children[tid]:
                remaining[child] -= 1
                if remaining[child] == 0:
                    heapq.heappush(ready, (position[child], child))
        return order

    def batches(self) -> list[list[str]]:
        """Rounds of the original batch policy: each round is every task whose
        dependencies are all in earlier rounds, in topological order."""
        level: dict[str, int] = {}
        for tid in self.topological_order():
            deps = self._index[tid].dependencies
            level[tid] = 1 + max((level[d] for d in deps), default=-1)
        rounds: list[list[str]] = [[] for _ in range(max(level.values(), default=-1) + 1)]
        for tid in self.topological_order():
            rounds[level[tid]].append(tid)
        return rounds

    def executable(self) -> list[str]:
        """PENDING tasks whose dependencies are all COMPLETED, in topological order."""
        return [
            tid
            for tid in self.topological_order()
            if self._index[tid].status is TaskStatus.PENDING
            and all(self._index[d].status is TaskStatus.COMPLETED for d in self._index[tid].dependencies)
        ]

    def progress(self) -> float:
        if not self.tasks:
            return 1.0
        done = sum(1 for task in self.tasks if task.status is TaskStatus.COMPLETED)
        return done / len(self.tasks)

    def to_dict(self) -> dict:
        data: dict = {"tasks": [task.to_dict() for task in self.tasks]}
        if self.summary:
            data = {"summary": self.summary, **data}
        return data


def id_prefix_of(plan: Plan) -> str:
    """``step`` for a team plan, ``task`` otherwise."""
    return "step" if plan.tasks and all(task.id.startswith("step_") for task in plan.tasks) else "task"
