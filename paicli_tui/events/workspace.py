"""Events: task isolation and merge-back. Commit ids and counts only, never
file content, so the ledger can prove what was merged without holding code."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from paicli_tui.events.base import Event


@dataclass(frozen=True)
class WorkspaceSnapshot(Event):
    """The run's start state: ``start`` is the snapshot commit (uncommitted and
    untracked files included), ``head`` the person's HEAD ("" when none),
    ``kind`` git | shadow (a workspace without git)."""

    name: ClassVar[str] = "workspace_snapshot"
    run: str
    start: str
    head: str
    kind: str


@dataclass(frozen=True)
class TaskBase(Event):
    """An attempt of a task starts in its own tree from ``base``."""

    name: ClassVar[str] = "task_base"
    task_id: str
    attempt: int
    base: str


@dataclass(frozen=True)
class TaskCommitted(Event):
    """An attempt ended; ``result`` holds its files (== ``base`` when it changed nothing)."""

    name: ClassVar[str] = "task_committed"
    task_id: str
    attempt: int
    base: str
    result: str
    files: int
    added: int
    removed: int


@dataclass(frozen=True)
class TaskMerged(Event):
    """``result`` merged into the integration head ``into`` as ``merge``
    (its parents are ``into`` and ``result``); ``resolved`` when the person
    settled a conflict on the way."""

    name: ClassVar[str] = "task_merged"
    task_id: str
    attempt: int
    into: str
    result: str
    merge: str
    resolved: bool = False


@dataclass(frozen=True)
class MergeConflict(Event):
    name: ClassVar[str] = "merge_conflict"
    task_id: str
    attempt: int
    into: str
    result: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class ConflictDecided(Event):
    """``choice`` is rerun | drop | fail | resolve (per file: ours, theirs, edited)."""

    name: ClassVar[str] = "conflict_decided"
    task_id: str
    attempt: int
    choice: str
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunApplied(Event):
    """The run's result reached the workspace (``mode`` tree | branch | none).
    ``kept`` are files the person edited during the run whose version was
    kept because the run's change conflicted with it."""

    name: ClassVar[str] = "run_applied"
    run: str
    mode: str
    start: str
    final: str
    files: tuple[str, ...]
    kept: tuple[str, ...] = ()
    branch: str = ""


@dataclass(frozen=True)
class IsolationSwept(Event):
    """Task trees a stopped run left behind were removed."""

    name: ClassVar[str] = "isolation_swept"
    count: int
