"""The evidence of one attempt, gathered by paicli rather than written by
the agent: how many tools it called, every command it ran with its exit
code and the tail of its output, and its check's result. A /team reviewer
judges against it; /plan records it with the task."""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from paicli_tui.events import Event, EventBus, ReceiptsSent, ToolCallFinished, ToolCallStarted
from paicli_tui.plan.model import TaskType
from paicli_tui.team.checks import CheckResult, output_tail

if TYPE_CHECKING:
    from paicli_tui.plan.model import Task

#: Task types whose completion without any tool call is suspect.
ACTING_TYPES = (TaskType.FILE_WRITE, TaskType.COMMAND)
NO_TOOL_CALLS = "no tool calls"
#: Commands listed at most, and the output lines kept of each.
MAX_COMMANDS = 20
COMMAND_TAIL_LINES = 8
COMMAND_TAIL_CHARS = 800
_EXIT = re.compile(r"exit code (-?\d+)")


@dataclass(frozen=True)
class CommandRun:
    command: str
    exit_code: int | None  # None: it timed out, was cancelled or refused
    tail: str

    def line(self) -> str:
        code = f"exit {self.exit_code}" if self.exit_code is not None else "no exit code"
        return f"{code} · {self.command}"


@dataclass
class Receipts:
    tool_calls: int = 0
    commands: list[CommandRun] = field(default_factory=list)
    check: CheckResult | None = None

    def flags(self, task: "Task") -> tuple[str, ...]:
        return (NO_TOOL_CALLS,) if self.tool_calls == 0 and task.type in ACTING_TYPES else ()

    def text(self, task: "Task") -> str:
        """The evidence section of a reviewer's request."""
        lines = ["Evidence gathered by paicli (not written by the worker):", f"- tool calls: {self.tool_calls}"]
        if self.commands:
            lines.append(f"- commands run ({len(self.commands)}):")
            for run in self.commands[-MAX_COMMANDS:]:
                lines.append(f"  $ {run.command}  → {run.line().split(' · ')[0]}")
                lines += [f"    {line}" for line in (run.tail or "(no output)").splitlines()]
        else:
            lines.append("- commands run: none")
        if self.check is not None:
            lines.append(f"- {self.check.receipt()}")
            if self.check.tail:
                lines += [f"    {line}" for line in self.check.tail.splitlines()[-COMMAND_TAIL_LINES:]]
        else:
            lines.append("- check: the plan gives this step none")
        if NO_TOOL_CALLS in self.flags(task):
            lines.append(f"⚠ {NO_TOOL_CALLS}: the worker reports a {task.type.value} step completed without "
                         "calling a single tool; nothing it claims was done in this attempt.")
        return "\n".join(lines)

    def event(self, actor: str, task: "Task", attempt: int, reviewer: str, diff_chars: int = 0) -> ReceiptsSent:
        check = "" if self.check is None else ("passed" if self.check.passed else "failed")
        return ReceiptsSent(actor, task.id, attempt, reviewer, self.tool_calls,
                            tuple(run.line() for run in self.commands[-MAX_COMMANDS:]), check, diff_chars,
                            self.flags(task))


class ReceiptTracker:
    """Listens to one agent's tool calls on the bus from creation to ``close()``."""

    def __init__(self, bus: EventBus, actor: str) -> None:
        self.actor = actor
        self._lock = threading.Lock()
        self._receipts = Receipts()
        self._commands: dict[str, str] = {}
        self._unsubscribe = bus.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        if getattr(event, "actor", None) != self.actor:
            return
        with self._lock:
            if isinstance(event, ToolCallStarted):
                self._receipts.tool_calls += 1
                if event.tool == "execute_command":
                    self._commands[event.call_id] = _command_of(event.arguments)
            elif isinstance(event, ToolCallFinished) and event.call_id in self._commands:
                command = self._commands.pop(event.call_id)
                found = _EXIT.match(event.content)
                tail = output_tail(event.content.partition("\n")[2], COMMAND_TAIL_LINES, COMMAND_TAIL_CHARS)
                self._receipts.commands.append(CommandRun(command, int(found.group(1)) if found else None, tail))

    def close(self) -> Receipts:
        self._unsubscribe()
        with self._lock:
            return self._receipts


def _command_of(arguments: str) -> str:
    try:
        command = json.loads(arguments).get("command", "")
    except (ValueError, AttributeError):
        return arguments
    return command if isinstance(command, str) else str(command)
