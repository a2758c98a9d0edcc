"""The SDK's client side driving the real `paicli acp` over real pipes:
a recording client, the wire as JSON-RPC dicts, and the agent's stderr in a
file (an undrained stderr pipe would block a chatty agent)."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Callable

from acp import PROTOCOL_VERSION, spawn_agent_process
from acp.schema import AllowedOutcome, ClientCapabilities, DeniedOutcome, Implementation, RequestPermissionResponse

from tests.support.cli import paicli_env

#: (tool_call title, option ids) → the option id to pick, or None to decline.
Answer = Callable[[str, list[str]], "str | None"]


def first_allow(title: str, options: list[str]) -> str | None:
    return options[0]


class RecordingClient:
    def __init__(self, answer: Answer = first_allow) -> None:
        self.answer = answer
        self.updates: list[dict] = []
        self.permissions: list[tuple[str, str, list[str]]] = []  # (tool call id, title, option ids)
        self.option_kinds: list[list[str]] = []
        self.initialized = None

    async def session_update(self, session_id, update, **kwargs) -> None:
        self.updates.append(update.model_dump(by_alias=True, exclude_none=True, mode="json"))

    async def request_permission(self, session_id, tool_call, options, **kwargs) -> RequestPermissionResponse:
        ids = [option.option_id for option in options]
        self.permissions.append((tool_call.tool_call_id, tool_call.title or "", ids))
        self.option_kinds.append([option.kind for option in options])
        choice = self.answer(tool_call.title or "", ids)
        if choice is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=choice))

    def of_kind(self, kind: str) -> list[dict]:
        return [update for update in self.updates if update["sessionUpdate"] == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(update["content"].get("text", "") for update in self.of_kind(kind))


@contextlib.asynccontextmanager
async def acp_agent(home: Path, workspace: Path, *args: str, client: RecordingClient | None = None,
                    **env_extra: str):
    """Yields (connection, process, client, wire); the agent's stderr is in
    ``home / "acp-stderr.txt"``."""
    client = client or RecordingClient()
    wire: list[tuple[str, dict]] = []
    stderr = (home / "acp-stderr.txt").open("w")
    env = paicli_env(home, PYTHONPATH=str(Path(__file__).resolve().parents[2]), **env_extra)
    try:
        async with spawn_agent_process(
            client, sys.executable, "-m", "paicli_tui", "acp", *args, env=env, cwd=workspace,
            transport_kwargs={"stderr": stderr}, observers=[lambda event: wire.append((event.direction.value,
                                                                                       event.message))],
        ) as (conn, process):
            client.initialized = await conn.initialize(
                protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities(),
                client_info=Implementation(name="tests", version="0"))
            yield conn, process, client, wire
    finally:
        stderr.close()


def model_args(server) -> list[str]:
    return ["--base-url", server.base_url, "--model", "m"]


