"""Events: team (P-5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from paicli_tui.events.base import Event


@dataclass(frozen=True)
class WorkerReportParsed(Event):
    name: ClassVar[str] = "worker_report"
    step_id: str
    attempt: int
    status: str  # completed | blocked | invalid
    result: str = ""
    reason: str = ""


@dataclass(frozen=True)
class ReviewStarted(Event):
    name: ClassVar[str] = "review_started"
    step_id: str
    attempt: int


@dataclass(frozen=True)
class ReviewVerdictGiven(Event):
    name: ClassVar[str] = "review_verdict"
    step_id: str
    attempt: int
    approved: bool
    feedback: str
    #: An approval's issues and suggestions, kept and shown with the step (P-5.6).
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class StepRetry(Event):
    name: ClassVar[str] = "retry"
    step_id: str
    attempt: int
    feedback: str
