"""The ``[hooks]`` part of config.toml and of a workspace's
``.paicli/config.toml``: commands run at fixed points of a session, in the
shape Claude Code uses, so hook scripts written for it read the same input.

    [[hooks.PreToolUse]]
    matcher = "execute_command"          # a tool name or a glob ("mcp__*")
    command = "python3 .paicli/hooks/check.py"
    timeout = 10                         # seconds

Pydantic only: running them is ``paicli_tui.hooks``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: The events a hook may be attached to, in the order a run meets them.
HOOK_EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PlanReady", "TaskCompleted", "Stop")


class HookEntry(BaseModel):
    """One command for one event."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: str
    """A bash command line, run in the workspace root with the event as one
    JSON object on stdin."""
    matcher: str = "*"
    """Which calls it sees: a tool name or glob for PreToolUse/PostToolUse,
    the run kind (react/plan/team) for the others; "" or "*" is all."""
    timeout: float = Field(60.0, gt=0, le=600)
    """Seconds before the hook's process group is killed (a warning)."""

    @field_validator("command")
    @classmethod
    def _not_blank(cls, command: str) -> str:
        if not command.strip():
            raise ValueError("a hook needs a command")
        return command


class HooksSettings(BaseModel):
    """One list of hooks per event; an unknown event name is an error."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    SessionStart: list[HookEntry] = Field(default_factory=list)
    """When the session's first run starts: stdout is context for it."""
    UserPromptSubmit: list[HookEntry] = Field(default_factory=list)
    """Before a prompt reaches the model: add context, or block it (exit 2)."""
    PreToolUse: list[HookEntry] = Field(default_factory=list)
    """Before a tool call is approved and run: exit 2 blocks it."""
    PostToolUse: list[HookEntry] = Field(default_factory=list)
    """After a tool call: exit 2 sends stderr to the model as feedback."""
    PlanReady: list[HookEntry] = Field(default_factory=list)
    """A /plan or /team plan before review: exit 2 sends it back to the planner."""
    TaskCompleted: list[HookEntry] = Field(default_factory=list)
    """A /plan task or /team step that finished: exit 2 retries it with the reason."""
    Stop: list[HookEntry] = Field(default_factory=list)
    """The end of a run: exit 2 on a ReAct turn continues it once."""

    def entries(self, event: str) -> list[HookEntry]:
        return list(getattr(self, event))

    def __bool__(self) -> bool:
        return any(getattr(self, event) for event in HOOK_EVENTS)
