"""Events: agent loop."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from paicli_tui.events.base import Event


@dataclass(frozen=True)
class AgentNote(Event):
    """A note the loop adds to the conversation, e.g. the runaway guard."""

    name: ClassVar[str] = "agent_note"
    text: str


@dataclass(frozen=True)
class Compaction(Event):
    name: ClassVar[str] = "compaction"
    messages_before: int
    messages_after: int
    stubbed_results: int


@dataclass(frozen=True)
class HistoryCleared(Event):
    name: ClassVar[str] = "history_clear"
    dropped: int


@dataclass(frozen=True)
class AgentFinished(Event):
    """End of one agent turn. ``status``: final | partial | cancelled | failed."""

    name: ClassVar[str] = "agent_finished"
    status: str
    text: str
    reason: str = ""
