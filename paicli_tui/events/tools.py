"""Events: tools (P-6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from paicli_tui.events.base import Event


@dataclass(frozen=True)
class ToolCallStarted(Event):
    name: ClassVar[str] = "tool_call"
    call_id: str
    tool: str
    arguments: str


@dataclass(frozen=True)
class ToolCallFinished(Event):
    name: ClassVar[str] = "tool_result"
    call_id: str
    tool: str
    ok: bool
    summary: str
    content: str


@dataclass(frozen=True)
class ApprovalRequested(Event):
    name: ClassVar[str] = "approval_requested"
    tool: str
    arguments: str
    reason: str
    risky: bool = False
    scope: str = ""
    """What "Always" would grant, as a rule line; empty when not offered."""


@dataclass(frozen=True)
class ApprovalDecided(Event):
    name: ClassVar[str] = "approval_decided"
    tool: str
    decision: str  # "yes" | "no" | "always" | "edit" | "auto-denied" | "auto-approved"
    reason: str = ""
    arguments: str = ""
    """For "edit": the arguments (JSON) that ran instead of the model's."""


@dataclass(frozen=True)
class GrantAdded(Event):
    """The person granted a scope ("Always"): later calls inside it skip the
    question the mode would ask, never the risk check."""

    name: ClassVar[str] = "grant_added"
    rule: str
    description: str


@dataclass(frozen=True)
class GrantRevoked(Event):
    name: ClassVar[str] = "grant_revoked"
    rule: str


@dataclass(frozen=True)
class GrantKept(Event):
    """A grant is kept for the workspace beyond this session."""

    name: ClassVar[str] = "grant_kept"
    rule: str
    path: str
