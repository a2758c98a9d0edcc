"""The ACP agent: one paicli session per ``session/new``, driven through
its port (``SessionPort``: typed commands, cancel, the approval mode); the
editor's input is parsed once, here, into one command."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import (PROTOCOL_VERSION, InitializeResponse, LoadSessionResponse, NewSessionResponse, PromptResponse,
                 RequestError, SetSessionModeResponse, update_agent_message_text)
from acp.helpers import update_available_commands
from acp.schema import (AgentCapabilities, AvailableCommand, AvailableCommandInput, Implementation, McpCapabilities,
                        PromptCapabilities, SessionMode, SessionModeState, UnstructuredCommandInput)

from paicli_tui import __version__
from paicli_tui.acp.bridge import UpdatePump
from paicli_tui.acp.client_mcp import with_client_servers
from paicli_tui.acp.prompt import read_prompt
from paicli_tui.acp.questions import AcpApprover, AcpPlanReviewer
from paicli_tui.acp.translate import UpdateTranslator
from paicli_tui.config.settings import MODES, Settings

if TYPE_CHECKING:
    from paicli_tui.session.live import Session
    from paicli_tui.session.port import RunOutcome, SessionPort

MODE_WORDS = {
    "auto": ("Auto", "reads and writes run; a risky command asks"),
    "ask": ("Ask", "writes, edits and commands ask first"),
    "plan": ("Plan", "every prompt becomes a /plan run: a task graph, reviewed, then run in parallel"),
}
COMMANDS = (("plan", "plan the goal as a task graph, review it, run tasks in parallel", "goal"),
            ("team", "workers do each step and a reviewer approves it", "goal"),
            ("clear", "forget the conversation", None))
#: Seconds a session gets to stop when the editor goes away.
CLOSE_TIMEOUT_S = 1.5


@dataclass
class AcpSession:
    session: "Session"
    pump: UpdatePump
    cancelled: threading.Event = field(default_factory=threading.Event)
    hooks_asked: bool = False


class PaicliAcpAgent:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.conn: Any = None
        self.sessions: dict[str, AcpSession] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, client_capabilities=None, client_info=None,
                         **kwargs: Any) -> InitializeResponse:
        # The key comes from paicli's own configuration (config.toml, the
        # environment): nothing to authenticate through the editor.
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(embedded_context=True, image=False, audio=False),
                mcp_capabilities=McpCapabilities(http=True, sse=False)),
            agent_info=Implementation(name="paicli", title="paicli", version=__version__),
            auth_methods=[])

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None

    async def new_session(self, cwd: str, mcp_servers: list | None = None, additional_directories=None,
                          **kwargs: Any) -> NewSessionResponse:
        state = await self._open(cwd, mcp_servers or [])
        session = state.session
        # After the response, so the editor knows the session it is about.
        asyncio.get_running_loop().call_later(0.05, state.pump.send_now, _commands_update())
        return NewSessionResponse(session_id=session.session_id, modes=_modes(session.approval_mode))

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list | None = None,
                           additional_directories=None, **kwargs: Any) -> LoadSessionResponse:
        """Continue a recorded session: its ledger goes on, the ReAct
        conversation is restored, and what happened is replayed first."""
        from paicli_tui.acp.resume import NotResumable, read_session

        if session_id in self.sessions:
            raise RequestError.invalid_request({"details": f"session {session_id} is already open"})
        try:
            resumed = await asyncio.to_thread(read_session, session_id, Path(cwd))
        except NotResumable as exc:
            raise RequestError.invalid_params({"details": str(exc)}) from None
        state = await self._open(cwd, mcp_servers or [], session_id=session_id)
        state.session.restore_history(resumed.messages)
        for update in resumed.replay:
            state.pump.send_now(update)
        await state.pump.flush()
        asyncio.get_running_loop().call_later(0.05, state.pump.send_now, _commands_update())
        return LoadSessionResponse(modes=_modes(state.session.approval_mode))

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> SetSessionModeResponse:
        state = self._state(session_id)
        try:
            state.session.approval_mode = mode_id  # ModeChanged → current_mode_update
        except ValueError as exc:
            raise RequestError.invalid_params({"details": str(exc)}) from None
        return SetSessionModeResponse()

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        state = self.sessions.get(session_id)
        if state is not None:
            state.cancelled.set()
            state.session.cancel("cancelled in the editor")

    async def prompt(self, session_id: str, prompt: list, **kwargs: Any) -> PromptResponse:
        from paicli_tui.session.port import SessionBusy

        state = self._state(session_id)
        session = state.session
        given = read_prompt(prompt, session.workspace)
        if given.ignored:
            state.pump.send_now(update_agent_message_text(f"(not used: {', '.join(given.ignored)})\n\n"))
        await self._ask_hook_trust(state)
        state.cancelled = threading.Event()
        state.pump.message_chunks = 0
        try:
            future, kind = self._start(session, given)
        except SessionBusy as exc:
            raise RequestError.invalid_request({"details": str(exc)}) from None
        if future is None:
            return PromptResponse(stop_reason="end_turn")
        try:
            outcome = await asyncio.wrap_future(future)
        except asyncio.CancelledError:  # the editor went away mid-run
            session.cancel("the ACP client disconnected")
            raise
        await state.pump.flush()
        if outcome.text and (kind != "react" or state.pump.message_chunks == 0 or not outcome.ok):
            state.pump.send_now(update_agent_message_text(_closing_text(outcome, state.pump.message_chunks)))
            await state.pump.flush()
        cancelled = state.cancelled.is_set() or outcome.status.lower() == "cancelled"
        return PromptResponse(stop_reason="cancelled" if cancelled else "end_turn")

    # -- helpers -------------------------------------------------------------------

    def _state(self, session_id: str) -> AcpSession:
        state = self.sessions.get(session_id)
        if state is None:
            raise RequestError.invalid_params({"details": f"no session {session_id!r} in this connection"})
        return state

    async def _open(self, cwd: str, servers: list, *, session_id: str | None = None) -> AcpSession:
        from paicli_tui.session.live import Session

        workspace = Path(cwd).expanduser()
        if not workspace.is_absolute() or not workspace.is_dir():
            raise RequestError.invalid_params({"details": f"cwd {cwd!r} is not an absolute path to a folder"})
        warnings: list[str] = []
        settings = with_client_servers(self.settings, servers, warnings)
        loop = asyncio.get_running_loop()
        pump = UpdatePump(loop, lambda update: self.conn.session_update(holder.session.session_id, update),
                          UpdateTranslator(workspace))
        holder = AcpSession(session=None, pump=pump)  # type: ignore[arg-type]

        def cancelled() -> bool:  # each prompt gets a fresh event: read it when asked
            return holder.cancelled.is_set()

        approver = AcpApprover(pump, lambda: self.conn, "", cancelled)
        reviewer = AcpPlanReviewer(pump, lambda: self.conn, "", cancelled)
        session = await asyncio.to_thread(Session, settings, workspace.resolve(), approver=approver,
                                          plan_reviewer=reviewer, session_id=session_id)
        holder.session = session
        approver.session_id = reviewer.session_id = session.session_id
        session.bus.subscribe(pump)
        self.sessions[session.session_id] = holder
        for warning in [*warnings, *session.warnings]:
            pump.send_now(update_agent_message_text(f"⚠ {warning}\n"))
        return holder

    def _start(self, session: "SessionPort", given):
        """The one place an editor's text becomes a command."""
        from paicli_tui.session.port import AgentTurn, ClearConversation, PlanRun, TeamRun, command_for_input

        text = given.text
        if given.embedded:
            embedded = session.redactor.text(given.embedded)  # type: ignore[attr-defined]
            text = f"{text}\n\n{embedded}" if text else embedded
        command = command_for_input(text, session.approval_mode, given.attachments)
        match command:
            case ClearConversation():
                return session.submit(command), "command"
            case PlanRun(goal=goal) | TeamRun(goal=goal):
                kind = "plan" if isinstance(command, PlanRun) else "team"
                linked = _with_links(goal, given.attachments)
                return session.submit(PlanRun(linked) if kind == "plan" else TeamRun(linked)), kind
            case AgentTurn():
                return session.submit(command), "react"
        raise AssertionError(f"unhandled command {command!r}")

    async def _ask_hook_trust(self, state: AcpSession) -> None:
        """Once per session: the workspace's hooks run only after the person agreed."""
        from acp import text_block, tool_content
        from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

        hooks = state.session.hooks
        pending = hooks.untrusted()
        if not pending or state.hooks_asked:
            return
        state.hooks_asked = True
        listing = "\n".join(hook.describe() for hook in pending)
        try:
            response = await self.conn.request_permission(
                session_id=state.session.session_id,
                tool_call=ToolCallUpdate(tool_call_id="hooks-trust", title="Run this workspace's hooks?", kind="execute",
                                         status="pending", content=[tool_content(text_block(listing))]),
                options=[PermissionOption(option_id="always", name="Trust and remember", kind="allow_always"),
                         PermissionOption(option_id="once", name="Trust this session", kind="allow_once"),
                         PermissionOption(option_id="no", name="Not now", kind="reject_once")])
        except (ConnectionError, RequestError):
            return
        outcome = response.outcome
        if isinstance(outcome, AllowedOutcome) and outcome.option_id in ("always", "once"):
            await asyncio.to_thread(hooks.trust, remember=outcome.option_id == "always")

    async def close(self) -> None:
        """The editor went away: stop every session and its processes."""
        states = list(self.sessions.values())
        self.sessions.clear()
        for state in states:
            await state.pump.close()
            state.cancelled.set()
        await asyncio.gather(*(asyncio.to_thread(state.session.close, CLOSE_TIMEOUT_S,
                                                 reason="the ACP client disconnected") for state in states),
                             return_exceptions=True)


def _modes(current: str) -> SessionModeState:
    return SessionModeState(current_mode_id=current, available_modes=[
        SessionMode(id=mode, name=MODE_WORDS[mode][0], description=MODE_WORDS[mode][1]) for mode in MODES])


def _commands_update():
    return update_available_commands([
        AvailableCommand(name=name, description=description,
                         input=AvailableCommandInput(root=UnstructuredCommandInput(hint=hint)) if hint else None)
        for name, description, hint in COMMANDS])


def _with_links(goal: str, attachments: tuple[str, ...]) -> str:
    """Plan and team runs take no attachments: the linked files are named."""
    return f"{goal}\n\nFiles the person pointed at: {', '.join(attachments)}" if attachments else goal


def _closing_text(outcome: "RunOutcome", streamed: int) -> str:
    lead = "\n\n" if streamed else ""
    if outcome.ok:
        return f"{lead}{outcome.text}"
    return f"{lead}[{outcome.status.lower()}] {outcome.text}"
