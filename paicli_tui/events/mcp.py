"""Events: MCP servers (P-9.1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from paicli_tui.events.base import Event


# Their tool calls are ordinary tool_call / tool_result events.


@dataclass(frozen=True)
class McpServerChanged(Event):
    """An MCP server changed state: ``state`` is starting | ready | failed
    (never became ready) | exited (died after it was ready) | stopping |
    stopped | untrusted (a workspace .mcp.json server waiting for the
    person's yes)."""

    name: ClassVar[str] = "mcp_server"
    server: str
    state: str
    transport: str
    source: str
    detail: str = ""
    tools: tuple[str, ...] = ()
    resources: int = 0
    pid: int = 0


@dataclass(frozen=True)
class McpResourceAttached(Event):
    """``@server:uri`` in the input: the resource's content went with the
    turn (``ok``), cut to ``chars`` characters when ``truncated``."""

    name: ClassVar[str] = "mcp_resource"
    server: str
    uri: str
    ok: bool
    chars: int = 0
    truncated: bool = False
    detail: str = ""


@dataclass(frozen=True)
class McpWorkspaceTrusted(Event):
    """The person agreed to start the servers of a workspace's .mcp.json
    (``sha256`` of the file agreed to; ``remembered``: kept for next time)."""

    name: ClassVar[str] = "mcp_trusted"
    path: str
    sha256: str
    servers: tuple[str, ...]
    remembered: bool = True
