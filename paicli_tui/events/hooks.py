"""Events: hooks, the person's commands run at fixed points of a session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from paicli_tui.events.base import Event


@dataclass(frozen=True)
class HookRan(Event):
    """One hook command ran for ``hook_event``. ``outcome``: ok (exit 0) |
    blocked (exit 2, ``reason`` from its stderr) | warning (any other exit)
    | timeout | cancelled | error (it could not start)."""

    name: ClassVar[str] = "hook_ran"
    hook_event: str
    matcher: str
    command: str
    source: str
    outcome: str
    exit_code: int | None = None
    duration_s: float = 0.0
    reason: str = ""
    context_chars: int = 0
    digest: str = ""


@dataclass(frozen=True)
class HooksTrusted(Event):
    """The person agreed to run the hooks of a workspace's
    ``.paicli/config.toml`` (``digests`` of the hooks agreed to;
    ``remembered``: kept for next time)."""

    name: ClassVar[str] = "hooks_trusted"
    path: str
    digests: tuple[str, ...]
    remembered: bool = True
