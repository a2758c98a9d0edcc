"""Events: memory and the code index (P-9.4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from paicli_tui.events.base import Event


@dataclass(frozen=True)
class MemorySaved(Event):
    """A fact is kept: saved by the person (actor ``session``) or, when its
    run ended without being cancelled, by the agent that is the actor."""

    name: ClassVar[str] = "memory_saved"
    fact_id: int
    text: str
    source: str  # person | agent
    run: str = ""


@dataclass(frozen=True)
class MemoryHeld(Event):
    """A fact the agent (the actor) saved in a run in auto mode, stored as
    pending when the run ended: recalled and searched only once the person
    keeps it (a ``memory_saved`` then follows), or deleted."""

    name: ClassVar[str] = "memory_held"
    fact_id: int
    text: str
    run: str = ""


@dataclass(frozen=True)
class MemoryDiscarded(Event):
    """Facts agents saved in a run that was cancelled: none is kept."""

    name: ClassVar[str] = "memory_discarded"
    count: int
    reason: str


@dataclass(frozen=True)
class MemoryDeleted(Event):
    name: ClassVar[str] = "memory_deleted"
    fact_id: int


@dataclass(frozen=True)
class MemoryRecalled(Event):
    """Facts put into an agent's first user message (ids as text)."""

    name: ClassVar[str] = "memory_recalled"
    facts: tuple[str, ...]


@dataclass(frozen=True)
class IndexProgress(Event):
    """The indexer has looked at ``done`` of ``total`` files (a few per second)."""

    name: ClassVar[str] = "index_progress"
    done: int
    total: int
    path: str


@dataclass(frozen=True)
class IndexBuilt(Event):
    """An index run ended; ``complete`` is false when it was cancelled."""

    name: ClassVar[str] = "index_built"
    files: int
    added: int
    changed: int
    unchanged: int
    removed: int
    skipped: int
    chunks: int
    duration_s: float
    complete: bool
    embeddings: str
