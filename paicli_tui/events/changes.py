"""Events: checkpoints and skills (P-9.2, P-9.3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from paicli_tui.events.base import Event


@dataclass(frozen=True)
class CheckpointSaved(Event):
    """A file's state was kept just before a tool changed it. ``existed``:
    there was a file; ``stored``: its bytes were kept (False: over the
    checkpoint size limit, so an undo cannot restore it)."""

    name: ClassVar[str] = "checkpoint"
    run_id: str
    task_id: str
    path: str
    tool: str
    existed: bool
    stored: bool


@dataclass(frozen=True)
class RunChangesRecorded(Event):
    """A run ended: the files its tools changed (``/undo`` can revert them)
    and who ran commands in it (what a command changed cannot be undone)."""

    name: ClassVar[str] = "run_changes"
    run_id: str
    files: tuple[str, ...]
    commands: tuple[str, ...]
    unstored: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChangesReverted(Event):
    """An undo (``/undo``, the run screen, ``revert_turn``) put files back."""

    name: ClassVar[str] = "undo"
    run_id: str
    task_id: str
    restored: tuple[str, ...]
    overwritten: tuple[str, ...]
    skipped: tuple[str, ...]
    failed: tuple[str, ...] = ()


@dataclass(frozen=True)
class SkillLoaded(Event):
    """``load_skill`` added a skill's body to the conversation as a message
    of its own, right after the tool results of that model turn."""

    name: ClassVar[str] = "skill_loaded"
    call_id: str
    skill: str
    source: str
    path: str
    chars: int
