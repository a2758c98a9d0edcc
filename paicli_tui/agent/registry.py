"""The tool registry: schemas for the model, validation, approvals and
execution. ``execute`` never raises: every problem becomes a failed result
the model can read."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import jsonschema
from jsonschema.exceptions import best_match

from paicli_tui.config.settings import Settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.policy.redaction import Redactor
from paicli_tui.tools.base import Deadline, Tool, ToolContext, ToolError, ToolResult
from paicli_tui.tools.command_env import CommandEnvPolicy
from paicli_tui.tools.files import EditFile, ReadFile, WriteFile
from paicli_tui.policy.gate import ApprovalGate
from paicli_tui.policy.grants import GrantStore, parse_rule
from paicli_tui.tools.grep import GrepCode
from paicli_tui.tools.listing import GlobFiles, ListDir
from paicli_tui.policy.risk import RiskVerdict
from paicli_tui.tools.search import SearchBackend, SearxngBackend, WebSearch
from paicli_tui.tools.shell import ExecuteCommand
from paicli_tui.tools.web import WebFetch
from paicli_tui.sandbox.os_sandbox import sandbox_for

if TYPE_CHECKING:
    from paicli_tui.checkpoints.recorder import CheckpointRecorder
    from paicli_tui.mcp.manager import McpManager


class ToolRegistry:
    def __init__(
        self,
        workspace: Path,
        settings: Settings,
        *,
        search_backend: SearchBackend | None = None,
        risk_checker: Callable[[str], RiskVerdict | None] | None = None,
        redactor: Redactor | None = None,
        saved_rules: list[str] | None = None,
    ) -> None:
        self.workspace = workspace.resolve()
        self.settings = settings
        self.redactor = redactor if redactor is not None else Redactor.for_session(settings)
        #: How commands are confined; its warning is said once at session start.
        self.sandbox = sandbox_for(settings, self.workspace)
        if search_backend is None and settings.search_url:
            search_backend = SearxngBackend(settings.search_url)
        tools: list[Tool] = [
            ReadFile(self.workspace), ListDir(self.workspace), GlobFiles(self.workspace), GrepCode(self.workspace),
            WriteFile(self.workspace), EditFile(self.workspace),
            ExecuteCommand(self.workspace, settings.command_timeout, CommandEnvPolicy.from_settings(settings),
                           self.sandbox),
            WebFetch(self.workspace),
        ]
        if search_backend is not None:
            tools.append(WebSearch(self.workspace, search_backend))
        self._tools = {tool.name: tool for tool in tools}
        self._validators = {tool.name: jsonschema.Draft202012Validator(tool.parameters) for tool in tools}
        permissions = settings.permissions
        self.grants = GrantStore(self.workspace, [parse_rule(r) for r in permissions.allow],
                                 [parse_rule(r) for r in permissions.deny],
                                 [parse_rule(r, "workspace") for r in saved_rules or ()])
        offline = self.sandbox.active and not self.sandbox.network_default
        self._gate = ApprovalGate(self.workspace, self.grants, risk_checker, self.redactor, offline=offline,
                                  written=self._written_in_run)
        #: Records each file's state before a tool changes it (set by the session).
        self.checkpoints: "CheckpointRecorder | None" = None
        #: The session's MCP servers (P-9.1): their tools come after the built-in ones.
        self.mcp: "McpManager | None" = None

    def add_tool(self, tool: Tool) -> None:
        """Offer one more tool (the session adds load_skill and revert_turn)."""
        self._tools[tool.name] = tool
        self._validators[tool.name] = jsonschema.Draft202012Validator(tool.parameters)

    def _written_in_run(self) -> tuple[frozenset[Path], int | None]:
        recorder = self.checkpoints
        return recorder.written_in_run() if recorder is not None else (frozenset(), None)

    def attach_mcp(self, manager: "McpManager") -> None:
        self.mcp = manager

    def _all_tools(self) -> list[Tool]:
        return [*self._tools.values(), *(self.mcp.tools() if self.mcp is not None else ())]

    def _tool(self, name: str) -> Tool | None:
        tool = self._tools.get(name)
        if tool is None and self.mcp is not None:
            tool = self.mcp.tool(name)
        return tool

    def register(self, tool: Tool) -> None:
        """Offer one more tool (memory and the code index come from the
        session, not from here); a name already taken is a programming error."""
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        self._validators[tool.name] = jsonschema.Draft202012Validator(tool.parameters)

    def schemas(self) -> list[dict]:
        return [tool.schema() for tool in self._all_tools()]

    def names(self) -> list[str]:
        return [tool.name for tool in self._all_tools()]

    def is_read_only(self, name: str) -> bool:
        tool = self._tool(name)
        return tool is not None and tool.read_only

    def execute(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        tool = self._tool(call.name)
        if tool is None:
            return _failed(f"unknown tool {call.name!r}; available tools: {', '.join(self.names())}", "unknown tool")
        ctx = replace(ctx, call_id=call.id)  # a copy: parallel calls share the caller's context
        try:
            args = self._arguments(tool, call.arguments)
            if ctx.cancel.is_set():
                return _failed("cancelled before it started", "cancelled")
            gate = self._gate.check(tool, args, ctx)
            if not gate.allowed:
                return ToolResult(False, gate.denial, gate.denial)
            ctx = replace(ctx, network_allowed=gate.network)
            if gate.arguments is None:
                return self._scrubbed(self._run(tool, args, self._with_deadline(ctx, tool)), ctx, call)
            result = self._run(tool, self._edited(tool, gate.arguments), self._with_deadline(ctx, tool))
            note = f"[the person edited this call before it ran; it ran with: {json.dumps(gate.arguments)}]"
            edited = replace(result, content=f"{note}\n{result.content}", summary=f"{result.summary} (edited by you)")
            return self._scrubbed(edited, ctx, call)
        except ToolError as exc:
            return _failed(str(exc), str(exc))
        except OSError as exc:
            message = f"{call.name} failed: {exc.strerror or type(exc).__name__}" + (
                f": {exc.filename}" if exc.filename else "")
            return _failed(message, message)
        except Exception as exc:  # a tool bug must reach the model as a result, not crash the loop
            return _failed(f"{call.name} failed unexpectedly: {type(exc).__name__}: {exc}", f"{call.name} crashed")

    def _run(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run ``tool``; a file it is about to change is checkpointed first."""
        recorder = self.checkpoints
        if recorder is None or tool.read_only:
            return tool.run(args, ctx)
        recorder.note_untracked(tool.name, ctx)
        paths = tool.changed_paths(args)
        if not paths:
            return tool.run(args, ctx)
        with recorder.recording(tool.name, paths, ctx):
            return tool.run(args, ctx)

    def _scrubbed(self, result: ToolResult, ctx: ToolContext, call: ToolCall) -> ToolResult:
        result = self.redactor.tool_result(result, ctx, call)
        if result.follow_up:
            result = replace(result, follow_up=self.redactor.text(result.follow_up))
        return result

    def _edited(self, tool: Tool, args: dict[str, Any]) -> dict[str, Any]:
        error = best_match(self._validator(tool).iter_errors(args))
        if error is not None:
            raise ToolError(f"the edited call is invalid: {error.message}; nothing ran")
        return args

    def _validator(self, tool: Tool):
        """A built-in tool's validator, or the one an MCP tool made from its
        server's schema."""
        return self._validators.get(tool.name) or getattr(tool, "validator")

    def _with_deadline(self, ctx: ToolContext, tool: Tool | None = None) -> ToolContext:
        """A copy of ``ctx`` for one call: calls run in parallel share the
        caller's context, so each gets its own clock, started after approval
        (time spent waiting for the user does not count). A caller's earlier
        deadline is kept."""
        deadline = Deadline.after(getattr(tool, "call_timeout", None) or self.settings.tool_timeout)
        if ctx.deadline is not None and ctx.deadline.at < deadline.at:
            deadline = ctx.deadline
        return replace(ctx, deadline=deadline)

    def _arguments(self, tool: Tool, raw: str) -> dict[str, Any]:
        prefix = f"invalid arguments for {tool.name}"
        try:
            args = json.loads(raw) if raw and raw.strip() else {}
        except json.JSONDecodeError as exc:
            raise ToolError(f"{prefix}: not valid JSON ({exc.msg} at position {exc.pos})") from None
        if not isinstance(args, dict):
            raise ToolError(f"{prefix}: expected a JSON object, got {type(args).__name__}")
        error = best_match(self._validator(tool).iter_errors(args))
        if error is not None:
            where = "/".join(str(part) for part in error.absolute_path)
            if error.validator == "additionalProperties":
                allowed = ", ".join(tool.parameters.get("properties", {}))
                raise ToolError(f"{prefix}: {error.message}; allowed arguments: {allowed}")
            raise ToolError(f"{prefix}: {where + ': ' if where else ''}{error.message}")
        return args


def _failed(content: str, summary: str) -> ToolResult:
    first_line = summary.splitlines()[0] if summary else "failed"
    return ToolResult(False, content, first_line[:160])
