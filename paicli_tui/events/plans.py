"""Events: plans and runs (P-3, P-4, P-5)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from paicli_tui.events.base import Event


@dataclass(frozen=True)
class PlanProposed(Event):
    """A plan version: ``origin`` is initial | amendment | edit | replan | file."""

    name: ClassVar[str] = "plan_version"
    version: int
    origin: str
    goal: str
    plan: dict


@dataclass(frozen=True)
class PlanRejected(Event):
    """A planner reply (or edit) that failed P-3.2 validation."""

    name: ClassVar[str] = "plan_rejected"
    origin: str
    error: str


@dataclass(frozen=True)
class RepairRequested(Event):
    """A rejected structured reply is sent back to the agent that wrote it
    with the exact error (issue 16). ``kind`` is plan | report | verdict,
    ``attempt`` the repair's number (1 …), ``step_id`` and ``step_attempt``
    the team step and its attempt (empty and 0 for a plan)."""

    name: ClassVar[str] = "repair_requested"
    kind: str
    attempt: int
    error: str
    step_id: str = ""
    step_attempt: int = 0


@dataclass(frozen=True)
class TaskDispatched(Event):
    name: ClassVar[str] = "dispatch"
    task_id: str
    worker: str
    attempt: int = 1


@dataclass(frozen=True)
class TaskStatusChanged(Event):
    name: ClassVar[str] = "status"
    task_id: str
    status: str
    result: str = ""
    error: str = ""


@dataclass(frozen=True)
class ReplanTriggered(Event):
    name: ClassVar[str] = "replan_triggered"
    failed_task: str
    reason: str
    replans: int


@dataclass(frozen=True)
class RunFinished(Event):
    """End of a plan/team run. ``status`` is a plan status (P-3.1)."""

    name: ClassVar[str] = "run_finished"
    status: str
    summary: str
    counts: dict = field(default_factory=dict)
    #: The run's answer in full: the results of the plan's completed ends.
    answer: str = ""


@dataclass(frozen=True)
class TaskPlaced(Event):
    """Where a dispatched task's turn runs when it does not run here: the
    executor, the cluster's node id, the node's address and the process
    (one record per turn and per retry after a lost worker)."""

    name: ClassVar[str] = "placed"
    task_id: str
    executor: str
    node_id: str
    address: str
    pid: int = 0
    attempt: int = 1
