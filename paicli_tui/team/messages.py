"""Team roles and the immutable messages between the orchestrator and its
sub-agents (P-5.1)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class AgentRole(str, Enum):
    PLANNER = "PLANNER"
    WORKER = "WORKER"
    REVIEWER = "REVIEWER"

    @property
    def uses_tools(self) -> bool:
        """Only workers are sent tool schemas (P-5.3)."""
        return self is AgentRole.WORKER

    @property
    def prompt_role(self) -> str:
        """The prompt file under ``prompts/modes/`` for this role."""
        return f"team-{self.value.lower()}"


class MessageType(str, Enum):
    TASK = "TASK"
    RESULT = "RESULT"
    PARTIAL = "PARTIAL"
    FEEDBACK = "FEEDBACK"
    APPROVAL = "APPROVAL"
    REJECTION = "REJECTION"
    ERROR = "ERROR"


@dataclass(frozen=True)
class AgentMessage:
    from_agent: str
    #: None for the orchestrator, which is not one of the sub-agent roles.
    from_role: AgentRole | None
    content: str
    type: MessageType
    #: An APPROVAL's notes (the reviewer's issues and suggestions, P-5.6).
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Accept the enum values as plain strings (e.g. read back from a
        # ledger) but never an unknown role or type.
        if self.from_role is not None:
            object.__setattr__(self, "from_role", AgentRole(self.from_role))
        object.__setattr__(self, "type", MessageType(self.type))
        if not isinstance(self.content, str):
            raise TypeError(f"AgentMessage content must be a string, not {type(self.content).__name__}")

    @property
    def is_error(self) -> bool:
        return self.type is MessageType.ERROR

    @classmethod
    def error(cls, from_agent: str, from_role: AgentRole, reason: str) -> "AgentMessage":
        return cls(from_agent, from_role, reason, MessageType.ERROR)

    def to_dict(self) -> dict[str, str | None]:
        return {
            "from_agent": self.from_agent,
            "from_role": self.from_role.value if self.from_role else None,
            "content": self.content,
            "type": self.type.value,
        }
