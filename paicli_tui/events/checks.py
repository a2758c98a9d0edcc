"""Events: a task's check command and the evidence a task's result carries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from paicli_tui.events.base import Event


@dataclass(frozen=True)
class CheckRan(Event):
    """A task's check ran in its tree after the agent reported completion.
    ``stopped``: "" (it exited), timeout | cancelled | error (it could not
    start); ``output_sha256`` is of the whole (capped, redacted) output,
    ``output_tail`` its last lines."""

    name: ClassVar[str] = "check_ran"
    task_id: str
    attempt: int
    command: str
    exit_code: int | None
    duration_s: float
    passed: bool
    output_sha256: str = ""
    output_tail: str = ""
    stopped: str = ""


@dataclass(frozen=True)
class ReceiptsSent(Event):
    """The evidence of one attempt: to its reviewer (``reviewer``) in /team,
    into the task's record in /plan (``reviewer`` ""). ``commands`` are
    ``exit N · command`` lines; ``check`` is ``passed``/``failed``/""."""

    name: ClassVar[str] = "receipts"
    task_id: str
    attempt: int
    reviewer: str
    tool_calls: int
    commands: tuple[str, ...] = ()
    check: str = ""
    diff_chars: int = 0
    flags: tuple[str, ...] = ()
