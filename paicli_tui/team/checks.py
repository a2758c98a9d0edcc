"""A task's check (the plan's ``check`` command) after its agent reports
completion: run in the task's tree with the shell tool's runner (the OS
sandbox, a time limit), recorded as a ``check_ran`` event. A failing
check is a failed attempt decided without a model call; its feedback holds
the command, the exit code and the tail of the output."""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paicli_tui.events import CheckRan, EventBus
from paicli_tui.tools.base import ToolError

if TYPE_CHECKING:
    from paicli_tui.agent.registry import ToolRegistry
    from paicli_tui.plan.model import Task

#: Lines and characters of a check's output kept in its feedback and record.
TAIL_LINES = 30
TAIL_CHARS = 3000


def output_tail(text: str, lines: int = TAIL_LINES, chars: int = TAIL_CHARS) -> str:
    """The last ``lines`` lines (at most ``chars`` characters) of ``text``."""
    kept = "\n".join(text.rstrip("\n").splitlines()[-lines:])
    return kept if len(kept) <= chars else "…" + kept[-chars:]


@dataclass(frozen=True)
class CheckResult:
    command: str
    exit_code: int | None
    duration_s: float
    output: str
    stopped: str = ""  # "" | timeout | cancelled | error

    @property
    def passed(self) -> bool:
        return not self.stopped and self.exit_code == 0

    @property
    def tail(self) -> str:
        return output_tail(self.output)

    def outcome_words(self) -> str:
        """``exit 1``, ``timed out``, ``could not start: …``."""
        if self.stopped == "timeout":
            return "timed out"
        if self.stopped == "cancelled":
            return "cancelled"
        if self.stopped == "error":
            return f"could not start: {self.output}"
        return f"exit {self.exit_code}"

    def feedback(self) -> str:
        """What the agent is told when its check failed (its next turn)."""
        return (f"The task's check failed, so the task is not done yet.\n"
                f"Check command: {self.command}\nResult: {self.outcome_words()} after {self.duration_s:.1f} s\n"
                f"Last lines of its output:\n{self.tail or '(no output)'}\n\n"
                "Fix what it shows (make the check pass; do not change the check), then answer again "
                "with your complete result.")

    def receipt(self) -> str:
        """One line for a reviewer or a report."""
        state = "passed" if self.passed else "FAILED"
        return f"check {state}: `{self.command}` → {self.outcome_words()} in {self.duration_s:.1f} s"


def run_task_check(task: "Task", registry: "ToolRegistry | None", attempt: int, *, actor: str, bus: EventBus | None,
                   cancel: threading.Event, timeout: float | None = None) -> CheckResult | None:
    """Run ``task.check`` where the task's tools work; None when it has no check."""
    if not task.check:
        return None
    if registry is None:
        result = CheckResult(task.check, None, 0.0, "no tools to run it with", "error")
    else:
        try:
            outcome = registry.run_check(task.check, cancel, timeout)
        except (ToolError, OSError) as exc:
            result = CheckResult(task.check, None, 0.0, str(exc), "error")
        else:
            stopped = outcome.stopped if outcome.stopped in ("timeout", "cancelled") else ""
            result = CheckResult(task.check, outcome.exit_code, outcome.duration_s, outcome.output, stopped)
    if bus is not None:
        digest = hashlib.sha256(result.output.encode("utf-8", "replace")).hexdigest()
        bus.publish(CheckRan(actor, task.id, attempt, result.command, result.exit_code, round(result.duration_s, 3),
                             result.passed, digest, result.tail, result.stopped))
    return result
