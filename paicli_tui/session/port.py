"""The one seam between front ends and the engine.

A front end (the Textual app, ``paicli run``, an ACP server) parses what the
person typed once, into one ``SessionCommand``, and hands it to a
``SessionPort``. Everything the run then does comes back as events on the
port's bus; the future resolves to a ``RunOutcome``. The live session, the
replay session and the tests' fake implement the port, so a reader (and a
type checker) can follow a goal from the input box into the engine.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, Union

if TYPE_CHECKING:
    from paicli_tui.checkpoints.service import Checkpoints
    from paicli_tui.config.settings import Settings
    from paicli_tui.events import EventBus
    from paicli_tui.hooks.runner import HookRunner
    from paicli_tui.knowledge.service import Knowledge
    from paicli_tui.llm.types import Usage
    from paicli_tui.mcp.manager import McpManager
    from paicli_tui.plan.model import Plan
    from paicli_tui.policy.grants import Grant, GrantStore
    from paicli_tui.prompting.skills import Skill
    from paicli_tui.records.resume_state import ResumeState
    from paicli_tui.session.run_isolation import RunIsolation

RunKind = Literal["react", "plan", "team", "command"]


class SessionBusy(RuntimeError):
    """Input arrived while a turn or run is still going."""


class ProviderUnavailable(RuntimeError):
    """The provider cannot answer (a remote server and no API key, a base URL
    that is not one): refused before anything is sent, rather than after a
    minute of retries."""


@dataclass(frozen=True)
class RunOutcome:
    kind: RunKind
    ok: bool
    status: str  # final/partial/cancelled/failed for react; a plan status otherwise
    text: str = ""


# -- what a front end may ask for ---------------------------------------------------


@dataclass(frozen=True)
class AgentTurn:
    """One ReAct turn; ``attachments`` are workspace paths whose content
    goes into the turn's user message."""

    text: str
    attachments: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlanRun:
    """/plan: plan the goal (unless ``plan`` is given), review, run."""

    goal: str
    plan: "Plan | None" = None


@dataclass(frozen=True)
class TeamRun:
    """/team: planner, workers and a reviewer for every step."""

    goal: str
    plan: "Plan | None" = None


@dataclass(frozen=True)
class ClearConversation:
    """/clear: forget the ReAct conversation."""


@dataclass(frozen=True)
class ResumeRun:
    """Go on with an interrupted /plan or /team run of this session's ledger:
    completed work kept, interrupted tasks run again from their base.
    ``plan``: the person edited the plan first (finished tasks it still
    holds unchanged stay finished). ``edit``: open the plan review first,
    on the current plan with its finished tasks marked."""

    state: "ResumeState"
    plan: "Plan | None" = None
    edit: bool = False


SessionCommand = Union[AgentTurn, PlanRun, TeamRun, ClearConversation, ResumeRun]


def command_for_input(text: str, approval_mode: str, attachments: tuple[str, ...] = ()) -> SessionCommand:
    """The person's input as one command: ``/plan GOAL`` and ``/team GOAL``
    win over the mode (P-6.5); plain text goes to /plan in plan mode. The
    only place typed input is read for a run kind."""
    text = text.strip()
    command, _, rest = text.partition(" ")
    match command.lower():
        case "/plan":
            return PlanRun(rest.strip())
        case "/team":
            return TeamRun(rest.strip())
        case "/clear":
            return ClearConversation()
    if approval_mode == "plan":
        return PlanRun(text)
    return AgentTurn(text, tuple(attachments))


def command_text(command: SessionCommand) -> str:
    """The command as the person would type it (echoes, queued inputs)."""
    match command:
        case AgentTurn(text=text):
            return text
        case PlanRun(goal=goal):
            return f"/plan {goal}".rstrip()
        case TeamRun(goal=goal):
            return f"/team {goal}".rstrip()
        case ClearConversation():
            return "/clear"
        case ResumeRun(state=state):
            return f"/resume {state.session}"
    raise TypeError(f"not a session command: {command!r}")


# -- the port --------------------------------------------------------------------------


class SessionPort(Protocol):
    """What a front end may read and call. Optional services (undo, memory,
    MCP) are None where a session has none, e.g. a replay."""

    session_id: str
    bus: "EventBus"
    settings: "Settings"
    workspace: Path
    model_label: str
    warnings: list[str]
    #: A recorded session played back: no input, no model.
    is_replay: bool
    checkpoints: "Checkpoints | None"
    knowledge: "Knowledge | None"
    mcp: "McpManager | None"
    #: Each /plan task and /team step in its own tree; None where nothing runs.
    isolation: "RunIsolation | None"
    #: The person's hook commands (``/hooks`` lists them; trust agrees to a workspace's).
    hooks: "HookRunner | None"

    @property
    def model(self) -> str:
        """The model name requests carry (prices are looked up by it)."""
        ...

    @property
    def usage(self) -> "Usage": ...

    @property
    def approval_mode(self) -> str: ...

    @approval_mode.setter
    def approval_mode(self, mode: str) -> None: ...

    @property
    def busy(self) -> bool: ...

    @property
    def read_only_reason(self) -> str:
        """Why input is refused ("" when it is taken)."""
        ...

    @property
    def intro(self) -> str:
        """The transcript's first line for a session that is not a plain live one ("" otherwise)."""
        ...

    @property
    def grants(self) -> "GrantStore": ...

    @property
    def user_skills_dir(self) -> Path | None: ...

    def submit(self, command: SessionCommand) -> "Future[RunOutcome]":
        """Start the command on the engine's thread; SessionBusy while one runs."""
        ...

    def cancel(self, reason: str = "cancelled by the user") -> None: ...

    def cancel_task(self, task_id: str) -> bool: ...

    def cycle_mode(self) -> str: ...

    def set_model(self, model: str) -> str: ...

    def skills(self) -> "list[Skill]": ...

    def revoke_grant(self, grant: "Grant") -> bool: ...

    def keep_grant(self, grant: "Grant") -> Path: ...

    def close(self, timeout: float = 10.0, *, reason: str = "cancelled by the user") -> None: ...
