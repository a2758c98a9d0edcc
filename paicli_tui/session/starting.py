"""The session while it starts: what the first screen shows before the real
one exists.

Building a live session imports the HTTP client, the tool registry with its
schema validator, the knowledge store and the MCP wiring, opens the ledger
and starts MCP servers: most of a second. The app draws its first screen
with this stand-in, builds the real session in a thread (``start``), and
swaps it in; what the person typed meanwhile waits in the input queue.

It holds what the first screen reads (settings, workspace, mode, model
label) and takes nothing that would have to be replayed later but the mode.
"""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from paicli_tui.config.presets import MODES, next_mode
from paicli_tui.events import EventBus
from paicli_tui.llm.types import Usage
from paicli_tui.session.port import SessionBusy

if TYPE_CHECKING:
    from paicli_tui.config.preview import SettingsPreview
    from paicli_tui.config.settings import Settings
    from paicli_tui.policy.grants import Grant, GrantStore
    from paicli_tui.prompting.skills import Skill
    from paicli_tui.session.port import RunOutcome, SessionCommand, SessionPort

#: What Enter does while the session starts.
STARTING_HINT = "starting… type ahead: Enter queues it until the session is ready"


def model_label_for(settings: "Settings | SettingsPreview") -> str:
    """The label the status bar shows, without building the client
    (``ChatClient.from_settings`` gives the same)."""
    return "demo (DEMO)" if settings.provider == "demo" else settings.resolved().model


class StartingSession:
    """A ``SessionPort`` that is not running yet: idle, takes no command."""

    is_replay = False
    read_only_reason = ""
    intro = ""
    checkpoints = None
    knowledge = None
    mcp = None
    isolation = None
    hooks = None

    def __init__(self, settings: "Settings | SettingsPreview", workspace: Path,
                 start: Callable[[], "SessionPort"]) -> None:
        """``settings``: validated, or their preview when ``start`` validates
        them (config/preview.py); ``start``: builds the real session (called
        once, off the UI thread)."""
        self.settings = settings
        self.workspace = workspace
        self.start = start
        self.session_id = ""
        self.bus = EventBus("starting")
        self.model_label = model_label_for(settings)
        self.warnings: list[str] = []
        self.usage = Usage()
        self._mode = settings.approval_mode

    @property
    def model(self) -> str:
        return self.settings.resolved().model

    @property
    def approval_mode(self) -> str:
        return self._mode

    @approval_mode.setter
    def approval_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}")
        self._mode = mode

    @property
    def busy(self) -> bool:
        return False

    @property
    def grants(self) -> "GrantStore":
        raise SessionBusy("the session is still starting")

    @property
    def user_skills_dir(self) -> Path | None:
        return None

    def submit(self, command: "SessionCommand") -> "Future[RunOutcome]":
        raise SessionBusy("the session is still starting: Enter queues it until it is ready")

    def cancel(self, reason: str = "cancelled by the user") -> None:
        return None

    def cancel_task(self, task_id: str) -> bool:
        return False

    def cycle_mode(self) -> str:
        self._mode = next_mode(self._mode)
        return self._mode

    def set_model(self, model: str) -> str:
        raise SessionBusy("the session is still starting: switch the model once it is ready")

    def skills(self) -> "list[Skill]":
        return []

    def revoke_grant(self, grant: "Grant") -> bool:
        return False

    def keep_grant(self, grant: "Grant") -> Path:
        raise SessionBusy("the session is still starting")

    def close(self, timeout: float = 10.0, *, reason: str = "cancelled by the user") -> None:
        return None
