"""Events: session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from paicli_tui.events.base import Event


@dataclass(frozen=True)
class SessionStarted(Event):
    name: ClassVar[str] = "session_started"
    mode: str
    goal: str
    model: str
    base_url: str
    workspace: str


@dataclass(frozen=True)
class ModeChanged(Event):
    name: ClassVar[str] = "mode_changed"
    mode: str


@dataclass(frozen=True)
class ModelChanged(Event):
    """``/model NAME``: later requests name ``model``."""

    name: ClassVar[str] = "model_changed"
    model: str
    label: str
