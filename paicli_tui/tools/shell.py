"""execute_command: a shell command in the workspace (P-6.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paicli_tui.tools.base import Tool, ToolContext, ToolError, ToolResult, object_schema
from paicli_tui.tools.command_env import CommandEnvPolicy
from paicli_tui.tools.process import CommandOutcome, run_command

if TYPE_CHECKING:
    from paicli_tui.sandbox.os_sandbox import Sandbox

MAX_TIMEOUT_S = 600.0
NETWORK_OFF_NOTE = ("[the network is off in the sandbox: if the command needs it, ask the person for a rule "
                    "`network: allow command: PREFIX` (or `host: HOST`) or to approve it with the network]")


class ExecuteCommand(Tool):
    name = "execute_command"
    read_only = False
    parameters = object_schema({
        "command": {"type": "string", "minLength": 1, "description": "Shell command (bash), run in the workspace root."},
        "timeout": {"type": "number", "exclusiveMinimum": 0,
                    "description": f"Seconds before the command and its children are killed (max {int(MAX_TIMEOUT_S)})."},
    }, ["command"])

    def __init__(self, workspace, default_timeout: float, env_policy: CommandEnvPolicy | None = None,
                 sandbox: "Sandbox | None" = None) -> None:
        super().__init__(workspace)
        self.default_timeout = default_timeout
        self.env_policy = env_policy or CommandEnvPolicy()
        self.sandbox = sandbox

    @property
    def description(self) -> str:  # type: ignore[override]
        if self.sandbox is not None and self.sandbox.active:
            return (
                "Run a shell command with the workspace root as working directory, inside a sandbox: the workspace "
                "is writable, the rest of the file system read-only, credential stores are hidden, /tmp is private"
                + ("" if self.sandbox.network_default else ", there is no network unless the person allowed it")
                + ", and background processes end with the command. stdin is closed, stdout and stderr are "
                f"merged and capped (head and tail kept). Default timeout {self.default_timeout:g} s. API keys, "
                "tokens and passwords are removed from its environment. Returns the exit code and output."
            )
        return (
            "Run a shell command with the workspace root as working directory; stdin is closed, stdout and stderr "
            f"are merged and capped (head and tail kept). Default timeout {self.default_timeout:g} s; on timeout the "
            "whole process group is killed. Background processes must redirect their output or they are stopped "
            "when the command exits; those that do run until the session ends. Processes that leave the process "
            "group (setsid) are reported, not stopped. API keys, tokens and passwords are removed from its "
            "environment. Returns the exit code and output."
        )

    def preview(self, args: dict[str, Any]) -> str:
        return args["command"]

    def run_check(self, command: str, cancel, timeout: float | None = None) -> CommandOutcome:
        """A plan's check command, in this tool's folder and sandbox, with no
        network: the person approved it with the plan, so no gate asks."""
        if self.sandbox is not None and self.sandbox.refusal:
            raise ToolError(self.sandbox.refusal)
        sandbox = self.sandbox
        wrap = (lambda argv: sandbox.wrap(argv, network=sandbox.network_default)) \
            if sandbox is not None and sandbox.active else None
        limit = min(float(timeout or self.default_timeout), MAX_TIMEOUT_S)
        return run_command(command, self.workspace, limit, cancel, self.env_policy.build(), wrap)

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        requested = args.get("timeout", self.default_timeout)
        timeout = min(float(requested), MAX_TIMEOUT_S)
        sandbox = self.sandbox
        if sandbox is not None and sandbox.refusal:
            raise ToolError(sandbox.refusal)
        network = sandbox is None or sandbox.network_default or ctx.network_allowed
        wrap = (lambda argv: sandbox.wrap(argv, network=network)) if sandbox is not None and sandbox.active else None
        outcome = run_command(args["command"], self.workspace, timeout, ctx.cancel, self.env_policy.build(), wrap)
        seconds = f"{outcome.duration_s:.1f}s"
        notes = []
        if requested > MAX_TIMEOUT_S:
            notes.append(f"[timeout capped at {MAX_TIMEOUT_S:g} s]")
        if outcome.stopped == "timeout":
            head = f"timed out after {timeout:g} s; the process group was killed"
            summary = f"timed out after {timeout:g}s"
        elif outcome.stopped == "cancelled":
            head = "cancelled; the process group was killed"
            summary = "cancelled"
        else:
            head = f"exit code {outcome.exit_code}"
            summary = f"exit {outcome.exit_code} in {seconds}"
            if outcome.stopped == "stray":
                notes.append("[background processes still held the output after the command exited and were "
                             "stopped; redirect their output (> file 2>&1 &) to keep them running]")
        notes.extend(_leftover_notes(outcome))
        if wrap is not None and not network and outcome.exit_code != 0:
            notes.append(NETWORK_OFF_NOTE)
        body = "\n".join([head, *notes, outcome.output.rstrip("\n") or "(no output)"])
        ok = outcome.stopped in (None, "stray") and outcome.exit_code == 0
        return ToolResult(ok, body, summary)


#: Pids named in a note at most; a fork bomb's list would drown the output.
MAX_PIDS_SHOWN = 10


def _pids(pids: tuple[int, ...]) -> str:
    shown = ", ".join(map(str, pids[:MAX_PIDS_SHOWN]))
    more = f" and {len(pids) - MAX_PIDS_SHOWN} more" if len(pids) > MAX_PIDS_SHOWN else ""
    return ("pid " if len(pids) == 1 else "pids ") + shown + more


def _leftover_notes(outcome: CommandOutcome) -> list[str]:
    """What still runs after the command, said as it is: a group kill
    reaches what stayed in the group, nothing here reaches what left it."""
    notes = []
    if outcome.in_group:
        count = len(outcome.in_group)
        notes.append(f"[{count} process{'es' if count > 1 else ''} still running in the command's process group "
                     f"({_pids(outcome.in_group)}); stopped when the session ends]")
    if outcome.escaped:
        count = len(outcome.escaped)
        notes.append(f"[{count} process{'es' if count > 1 else ''} left the command's process group and may still "
                     f"be running ({_pids(outcome.escaped)}); paicli cannot stop {'them' if count > 1 else 'it'}]")
    return notes
