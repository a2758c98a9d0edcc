"""What every tool shares: its result, the per-call context, and the Tool
base class the registry drives."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from paicli_tui.events import EventBus
    from paicli_tui.policy.approval import Approver
    from paicli_tui.tools.trusted_urls import TrustedUrls


@dataclass(frozen=True)
class ToolResult:
    ok: bool
    content: str
    """Full text for the model (the loop wraps it as untrusted data)."""
    summary: str
    """One short line for the UI."""
    follow_up: str = ""
    """A message the conversation gets right after this turn's tool results
    (load_skill: the skill's body), as a message of its own."""


@dataclass
class ToolContext:
    actor: str
    cancel: threading.Event
    trusted_urls: "TrustedUrls"
    approver: "Approver"
    approval_mode: str = "auto"
    """auto | ask | plan (plan behaves as auto for approvals)."""
    bus: "EventBus | None" = None
    task: str = ""
    """The task or step the agent works on ("step_2: add tests"), for the dialog."""
    deadline: "Deadline | None" = None
    """When this call must stop; the registry sets one per call."""
    call_id: str = ""
    """The model's id for this call; the registry sets it per call."""
    network_allowed: bool = False
    """The approval gate let this call reach the network (a ``network:
    allow`` rule or the person's choice); the registry sets it per call."""

    def check_stop(self, tool: str, advice: str = "narrow the search") -> None:
        """Raise ToolStopped once the call is cancelled or past its deadline.
        Long-running tools call this between units of work."""
        if self.cancel.is_set():
            raise ToolStopped(f"{tool} cancelled")
        if self.deadline is not None and self.deadline.expired():
            raise ToolStopped(f"{tool} stopped after {self.deadline.seconds:g} s (deadline); {advice}")


@dataclass(frozen=True)
class Deadline:
    seconds: float
    """The budget, for messages."""
    at: float
    """``time.monotonic()`` value at which it expires."""

    @classmethod
    def after(cls, seconds: float) -> "Deadline":
        return cls(seconds, time.monotonic() + seconds)

    def expired(self) -> bool:
        return time.monotonic() >= self.at


class ToolError(Exception):
    """A refusal or failure the model should read: ``str()`` is one line."""


class ToolStopped(ToolError):
    """The call was cancelled or ran out of time before it finished."""


class Tool:
    """One tool: a JSON Schema for its arguments and a ``run`` that gets
    already-validated arguments. ``run`` may raise ToolError; the registry
    turns it into a failed result."""

    name: ClassVar[str]
    description: ClassVar[str]
    parameters: ClassVar[dict[str, Any]]
    read_only: ClassVar[bool] = True
    #: Non-empty: every call asks the person, in every mode, with this
    #: reason; no grant or allow rule spares it (revert_turn).
    always_asks: ClassVar[str] = ""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace

    def schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def approval_reason(self, mode: str) -> str | None:
        """Why a call of this tool waits for the person in ``mode`` beyond
        what the gate's own rules ask (an MCP tool asks for itself); None:
        nothing more."""
        return None

    def preview(self, args: dict[str, Any]) -> str:
        """What an approval request shows (a diff, the command). May raise
        ToolError so a call that cannot succeed is refused before asking."""
        return ""

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise ToolError(f"{self.name} cannot run")

    def changed_paths(self, args: dict[str, Any]) -> list[str]:
        """The workspace files ``run`` may change, as given: each is
        checkpointed before the call so an undo can put it back."""
        return []


def object_schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {many or word + 's'}"
