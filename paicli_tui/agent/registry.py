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
from paicli_tui.tools.command_env import GIT_REPOSITORY_VARIABLES, CommandEnvPolicy
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
    from paicli_tui.hooks.runner import HookRunner
    from paicli_tui.mcp.manager import McpManager
    from paicli_tui.tools.process import CommandOutcome
    from paicli_tui.workspace.journal import WriteJournal


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
        self._search_backend = search_backend
        self._risk_checker = risk_checker
        tools = self._builtin_tools(self.workspace)
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
        #: The session's hooks: PreToolUse may block a call before it is
        #: approved, PostToolUse may add feedback to its result.
        self.hooks: "HookRunner | None" = None
        #: In a task's tree: told what each call may write (see ``for_root``).
        self.journal: "WriteJournal | None" = None

    def _builtin_tools(self, root: Path, *, task_tree: bool = False) -> list[Tool]:
        env = CommandEnvPolicy.from_settings(self.settings)
        if task_tree:
            # An inherited GIT_DIR would point git in the task tree at the
            # person's repository (or a bare one: "must be run in a work tree").
            env = replace(env, dropped=(*env.dropped, *GIT_REPOSITORY_VARIABLES))
        # A task's tree is the one folder its commands may write.
        sandbox = self.sandbox if root == self.workspace else sandbox_for(self.settings, root)
        tools: list[Tool] = [
            ReadFile(root), ListDir(root), GlobFiles(root), GrepCode(root), WriteFile(root), EditFile(root),
            ExecuteCommand(root, self.settings.command_timeout, env, sandbox),
            WebFetch(root),
        ]
        if self._search_backend is not None:
            tools.append(WebSearch(root, self._search_backend))
        return tools

    def for_root(self, root: Path, journal: "WriteJournal | None" = None) -> "ToolRegistry":
        """A view of this registry whose file and command tools work in
        ``root`` (a task's own tree): the same settings, grants, redactor, MCP
        servers and session tools, a gate bound to ``root``, and no
        checkpoints (the tree is disposable; its base commit is its undo) nor
        ``revert_turn`` (it reverts the person's workspace, not the tree).
        ``journal`` learns which files each call may change, so the task's
        commit need not walk the whole tree when only file tools wrote."""
        view = object.__new__(ToolRegistry)
        view.__dict__.update(self.__dict__)
        view.workspace = root.resolve()
        builtin = self._builtin_tools(view.workspace, task_tree=True)
        names = {tool.name for tool in builtin}
        extra = [t for name, t in self._tools.items() if name not in names and name not in _WORKSPACE_ONLY_TOOLS]
        view._tools = {tool.name: tool for tool in [*builtin, *extra]}
        view._validators = {name: self._validators[name] for name in view._tools}
        view._gate = ApprovalGate(view.workspace, self.grants, self._risk_checker, self.redactor)
        view.checkpoints = None
        view.journal = journal
        if journal is not None:
            journal.watch()
        return view

    def run_check(self, command: str, cancel, timeout: float | None = None) -> "CommandOutcome":
        """Run a plan's check with the shell tool's runner, where that tool
        runs (this registry's root, its sandbox); the output is redacted."""
        tool = self._tools.get("execute_command")
        if not isinstance(tool, ExecuteCommand):
            raise ToolError("no command tool to run the check with")
        if self.journal is not None:
            self.journal.anything()
        outcome = tool.run_check(command, cancel, timeout)
        return replace(outcome, output=self.redactor.text(outcome.output))

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
            blocked = self._pre_hook(tool, args, ctx)
            if blocked is not None:  # a check the person configured: the call is never offered for approval
                return ToolResult(False, f"blocked by hook: {blocked}", f"blocked by hook: {blocked}"[:160])
            gate = self._gate.check(tool, args, ctx)
            if not gate.allowed:
                return ToolResult(False, gate.denial, gate.denial)
            ctx = replace(ctx, network_allowed=gate.network)
            if gate.arguments is None:
                result = self._run(tool, args, self._with_deadline(ctx, tool))
                return self._scrubbed(self._post_hook(tool, args, result, ctx), ctx, call)
            args = self._edited(tool, gate.arguments)
            result = self._run(tool, args, self._with_deadline(ctx, tool))
            note = f"[the person edited this call before it ran; it ran with: {json.dumps(gate.arguments)}]"
            edited = replace(result, content=f"{note}\n{result.content}", summary=f"{result.summary} (edited by you)")
            return self._scrubbed(self._post_hook(tool, args, edited, ctx), ctx, call)
        except ToolError as exc:
            return _failed(str(exc), str(exc))
        except OSError as exc:
            message = f"{call.name} failed: {exc.strerror or type(exc).__name__}" + (
                f": {exc.filename}" if exc.filename else "")
            return _failed(message, message)
        except Exception as exc:  # a tool bug must reach the model as a result, not crash the loop
            return _failed(f"{call.name} failed unexpectedly: {type(exc).__name__}: {exc}", f"{call.name} crashed")

    def _pre_hook(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> str | None:
        """The reason a PreToolUse hook blocks this call, else None."""
        if self.hooks is None or not self.hooks.matching("PreToolUse", tool.name):
            return None
        if self.journal is not None:
            self.journal.anything()  # a hook's command may write anything
        verdict = self.hooks.run("PreToolUse", {
            "tool_name": tool.name, "tool_input": args, "call_id": ctx.call_id, "actor": ctx.actor, "task": ctx.task,
            "approval_mode": ctx.approval_mode,
        }, match=tool.name, actor=ctx.actor, cancel=ctx.cancel)
        return verdict.reason if verdict.blocked else None

    def _post_hook(self, tool: Tool, args: dict[str, Any], result: ToolResult, ctx: ToolContext) -> ToolResult:
        """A PostToolUse hook's exit 2 adds its reason to what the model
        reads; the call already ran."""
        if self.hooks is None or not self.hooks.matching("PostToolUse", tool.name):
            return result
        if self.journal is not None:
            self.journal.anything()
        response = {"ok": result.ok, "summary": result.summary, "content": result.content[:16_000]}
        verdict = self.hooks.run("PostToolUse", {
            "tool_name": tool.name, "tool_input": args, "tool_response": response, "call_id": ctx.call_id,
            "actor": ctx.actor, "task": ctx.task,
        }, match=tool.name, actor=ctx.actor, cancel=ctx.cancel)
        if not verdict.blocked:
            return result
        return replace(result, content=f"{result.content}\n[hook] {verdict.reason}")

    def _run(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run ``tool``; a file it is about to change is checkpointed first."""
        if self.journal is not None:
            self._note_writes(tool, args)
        recorder = self.checkpoints
        if recorder is None or tool.read_only:
            return tool.run(args, ctx)
        recorder.note_untracked(tool.name, ctx)
        paths = tool.changed_paths(args)
        if not paths:
            return tool.run(args, ctx)
        with recorder.recording(tool.name, paths, ctx):
            return tool.run(args, ctx)

    def _note_writes(self, tool: Tool, args: dict[str, Any]) -> None:
        """Tell the tree's journal what this call may write: a tool that does
        not name its files (a command, an MCP tool) may write anything."""
        assert self.journal is not None
        if not tool.read_only:
            paths = tool.changed_paths(args)
            if paths:
                self.journal.wrote(paths)
            else:
                self.journal.anything()

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


#: Session tools that act on the person's workspace, never offered in a task tree.
_WORKSPACE_ONLY_TOOLS = frozenset({"revert_turn"})


def _failed(content: str, summary: str) -> ToolResult:
    first_line = summary.splitlines()[0] if summary else "failed"
    return ToolResult(False, content, first_line[:160])
