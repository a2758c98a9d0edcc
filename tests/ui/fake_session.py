"""A stand-in for the live session that implements the same SessionPort: a
real EventBus that tests publish real events onto (from threads when they
like), and a record of what the UI asked for."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from paicli_tui.config.settings import Settings
from paicli_tui.events import EventBus, ModeChanged, ModelResponse
from paicli_tui.llm.types import Usage
from paicli_tui.policy.grants import Grant, GrantStore
from paicli_tui.config.settings import checked_mode, next_mode
from paicli_tui.session.port import AgentTurn, SessionCommand, command_text

#: A fixed string so snapshots never show a temp path.
WORKSPACE = Path("/work/demo-project")


@dataclass(frozen=True)
class Outcome:
    kind: str
    ok: bool
    status: str
    text: str = ""


class FakeSession:
    def __init__(self, workspace: Path = WORKSPACE, model_label: str = "demo") -> None:
        self.settings = Settings(provider="demo")
        self.workspace = workspace
        self.session_id = "test-session"
        self.bus = EventBus(self.session_id)
        self.model_label = model_label
        #: The model requests would name (prices are looked up by it).
        self.model = model_label
        self.usage = Usage()
        self.busy = False
        self.commands: list[SessionCommand] = []
        self.submitted: list[str] = []  # each command as typed
        self.attachments: list[tuple[str, ...]] = []  # per submit, in order
        self.futures: list[Future] = []
        self.cancelled = 0
        self.cleared = 0
        self.closed = False
        self.submit_error: Exception | None = None
        self._mode = "auto"
        self._lock = threading.Lock()
        self.grants = GrantStore(workspace)
        self.kept: list[Grant] = []
        self.warnings: list[str] = []
        #: Undo, memory, MCP and skills: tests that need them set real ones.
        self.checkpoints = None
        self.knowledge = None
        self.mcp = None
        self.isolation = None
        self.hooks = None
        self.user_skills_dir: Path | None = None
        self.skill_list: list = []
        self.is_replay = False
        self.read_only_reason = ""
        self.intro = ""
        self.cancelled_tasks: list[str] = []
        self.bus.subscribe(self._count_usage)

    @property
    def approval_mode(self) -> str:
        return self._mode

    @approval_mode.setter
    def approval_mode(self, mode: str) -> None:
        self._mode = checked_mode(mode)
        self.bus.publish(ModeChanged("session", mode))

    def revoke_grant(self, grant: Grant) -> bool:
        return self.grants.forget_kept(grant) if grant.source == "workspace" else self.grants.revoke(grant)

    def keep_grant(self, grant: Grant) -> Path:
        self.kept.append(self.grants.keep(grant))
        return Path("/config/permissions.toml")

    def cycle_mode(self) -> str:
        self.approval_mode = next_mode(self._mode)
        return self._mode

    def _count_usage(self, event) -> None:
        if isinstance(event, ModelResponse):
            with self._lock:
                self.usage = self.usage + Usage.of_response(event)

    def set_model(self, model: str) -> str:
        self.model = self.model_label = model
        return model

    def submit(self, command: SessionCommand) -> Future:
        if self.submit_error is not None:
            raise self.submit_error
        self.commands.append(command)
        self.submitted.append(command_text(command))
        self.attachments.append(command.attachments if isinstance(command, AgentTurn) else ())
        future: Future = Future()
        self.futures.append(future)
        self.busy = True
        return future

    def finish(self, outcome: Outcome | None = None) -> None:
        """End the latest job the way the engine thread would."""
        self.busy = False
        self.futures[-1].set_result(outcome or Outcome("react", True, "final"))

    def skills(self) -> list:
        return list(self.skill_list)

    def cancel(self, reason: str = "cancelled by the user") -> None:
        self.cancelled += 1

    def cancel_task(self, task_id: str) -> bool:
        self.cancelled_tasks.append(task_id)
        return True

    def clear(self) -> None:
        self.cleared += 1

    def close(self, timeout: float = 10.0, *, reason: str = "cancelled by the user") -> None:
        self.closed = True
