"""The session's MCP servers (P-9.1): started in the background, their tools
offered to tool-using agents, their resources indexed, restarted on request,
stopped with the session.

Every method here is for engine or UI threads and never blocks on a server
longer than the caller's deadline: the connections live on one asyncio loop
(``EngineLoop``) that is started only when there is a server to start.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from concurrent.futures import Future, TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from paicli_tui.events import EventBus, McpServerChanged, McpWorkspaceTrusted
from paicli_tui.config.mcp_settings import McpSettings
from paicli_tui.mcp.trust_digest import grants_text
from paicli_tui.mcp.specs import McpConfig, ServerSpec
from paicli_tui.tools.base import ToolError, ToolStopped

if TYPE_CHECKING:
    from paicli_tui.mcp.connection import ServerConnection
    from paicli_tui.mcp.tool import McpTool

ACTOR = "mcp"
POLL_S = 0.05
#: One line per resource in the index, at most this long.
MAX_INDEX_LINE = 200
CLOSE_S = 8.0
#: Seconds a server's task gets to record its end after it was killed.
KILLED_S = 0.5
#: After the startup timeout, how long a failing server may take to say so.
SETTLE_S = 2.0


@dataclass(frozen=True)
class ToolView:
    name: str
    description: str
    read_only: bool


@dataclass(frozen=True)
class ResourceView:
    uri: str
    description: str


@dataclass(frozen=True)
class ServerStatus:
    """What /mcp shows for one server: a snapshot, safe to keep."""

    name: str
    source: str
    transport: str
    target: str
    state: str
    detail: str
    tools: tuple[ToolView, ...] = ()
    resources: tuple[ResourceView, ...] = ()
    pid: int = 0


class McpManager:
    def __init__(self, config: McpConfig, settings: McpSettings, bus: EventBus, workspace: Path, *,
                 trusted: bool = False, tool_timeout: float = 60.0,
                 redact: Callable[[str], str] = lambda text: text) -> None:
        """``redact``: what /mcp shows passes it (a server's stderr may hold
        a secret); events are redacted by the bus."""
        self.config = config
        self.settings = settings
        self.bus = bus
        self.workspace = workspace
        self.tool_timeout = tool_timeout
        self.redact = redact
        self._specs = [s for s in config.servers if s.source != "workspace" or trusted]
        self.untrusted = [] if trusted else config.workspace_servers()
        self._connections: dict[str, "ServerConnection"] = {}
        self._runs: dict[str, Future] = {}
        self._tools: dict[str, "McpTool"] = {}
        self._server_tools: dict[str, list[str]] = {}
        self._skipped: dict[str, list[str]] = {}
        self._loop = None
        self._dir: Path | None = None
        self._changed = threading.Condition()
        self._started_at = time.monotonic()
        self._closed = False

    # -- starting -----------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        return [spec.name for spec in self.config.servers]

    def start(self, *, trusted_by_flag: bool = False) -> None:
        """Start every server this session may start; returns at once. The
        workspace's servers, when they start, are recorded with why: agreed
        before (kept) or ``--trust-mcp`` (this run only)."""
        self._started_at = time.monotonic()
        workspace = [spec.name for spec in self._specs if spec.source == "workspace"]
        if workspace and self.config.workspace_file is not None:
            self.bus.publish(McpWorkspaceTrusted(ACTOR, str(self.config.workspace_file), self.config.workspace_sha256,
                                                 tuple(workspace), not trusted_by_flag))
        for spec in self._specs:
            self._launch(spec)
        for spec in self.untrusted:
            self._publish_state(spec, "untrusted", "waiting for your yes to this workspace's .mcp.json (/mcp)")

    def trust_workspace(self, *, remember: bool = True) -> list[str]:
        """The person agreed to the workspace's .mcp.json: start its servers
        (and remember the agreement for this file's content)."""
        from paicli_tui.mcp.trust import trust

        waiting, self.untrusted = self.untrusted, []
        if not waiting or self.config.workspace_file is None:
            return []
        if remember:
            trust(self.workspace, self.config.workspace_sha256)
        self.bus.publish(McpWorkspaceTrusted(ACTOR, str(self.config.workspace_file), self.config.workspace_sha256,
                                             tuple(s.name for s in waiting), remember))
        self._specs.extend(waiting)
        for spec in waiting:
            self._launch(spec)
        return [spec.name for spec in waiting]

    def _launch(self, spec: ServerSpec) -> None:
        from paicli_tui.mcp.connection import ServerConnection

        if self._closed:
            return
        loop = self._engine_loop()
        assert self._dir is not None
        connection = ServerConnection(spec, startup_timeout=self.settings.startup_timeout,
                                      log_path=self._dir / f"{spec.name}.log", on_change=self._on_change)
        with self._changed:
            self._connections[spec.name] = connection
        self._runs[spec.name] = loop.submit(connection.run())

    def _engine_loop(self):
        if self._loop is None:
            from paicli_tui.mcp.engine_loop import EngineLoop

            self._dir = Path(tempfile.mkdtemp(prefix="paicli-mcp-"))
            self._loop = EngineLoop()
        return self._loop

    def restart(self, name: str) -> bool:
        """Stop the server if it runs and start it again, in the background.
        False when no such server may run (unknown, or not agreed to)."""
        spec = next((s for s in self._specs if s.name == name), None)
        if spec is None or self._closed:
            return False
        old = self._connections.get(name)
        run = self._runs.get(name)
        if old is not None and self._loop is not None:
            self._loop.call_soon(old.stop)
        if run is not None:
            run.add_done_callback(lambda _done: self._launch(spec))
        else:
            self._launch(spec)
        return True

    def wait_started(self, limit: float | None = None) -> None:
        """Until no server is still starting, at most ``mcp.startup_timeout``
        after the session began (``limit`` seconds from now, when given)."""
        until = self._started_at + self.settings.startup_timeout + SETTLE_S
        if limit is not None:
            until = min(until, time.monotonic() + limit)
        with self._changed:
            while any(c.state == "starting" for c in self._connections.values()):
                left = until - time.monotonic()
                if left <= 0:
                    return
                self._changed.wait(left)

    # -- state ----------------------------------------------------------------------------

    def _on_change(self, connection: "ServerConnection") -> None:
        """Called on the engine loop whenever a connection changes state."""
        spec = connection.spec
        with self._changed:
            if self._connections.get(spec.name) is not connection:
                return  # an old connection of a restarted server ending
            if connection.state == "ready":
                self._adopt_tools(connection)
            names = tuple(self._server_tools.get(spec.name, ()))
            self._changed.notify_all()
        detail = connection.detail
        skipped = self._skipped.get(spec.name)
        if connection.state == "ready" and skipped:
            detail += f"; left out (invalid input schema): {', '.join(skipped)}"
        self.bus.publish(McpServerChanged(ACTOR, spec.name, connection.state, spec.transport, spec.source, detail,
                                          names if connection.state == "ready" else (),
                                          len(connection.resources) if connection.state == "ready" else 0,
                                          connection.pid))

    def _adopt_tools(self, connection: "ServerConnection") -> None:
        from jsonschema.exceptions import SchemaError

        from paicli_tui.mcp.tool import McpTool, exposed_name

        spec = connection.spec
        for old in self._server_tools.pop(spec.name, []):
            self._tools.pop(old, None)
        taken = set(self._tools)
        names, skipped = [], []
        for remote in connection.tools:
            name = exposed_name(spec.name, remote.name, taken)
            try:
                tool = McpTool(self, spec.name, remote, name, trust_read_only=spec.trust_read_only,
                               timeout=spec.timeout)
            except (SchemaError, TypeError, ValueError):
                skipped.append(remote.name)
                continue
            taken.add(name)
            self._tools[name] = tool
            names.append(name)
        self._server_tools[spec.name] = names
        self._skipped[spec.name] = skipped

    def _publish_state(self, spec: ServerSpec, state: str, detail: str) -> None:
        self.bus.publish(McpServerChanged(ACTOR, spec.name, state, spec.transport, spec.source, detail))

    def statuses(self) -> list[ServerStatus]:
        out = []
        with self._changed:
            for spec in self.config.servers:
                connection = self._connections.get(spec.name)
                if connection is None:
                    state = "untrusted" if spec in self.untrusted else "stopped"
                    out.append(ServerStatus(spec.name, spec.source, spec.transport, self.redact(spec.target()), state,
                                            "press t to agree to this workspace's .mcp.json and start it: "
                                            + self.redact(grants_text(spec)) if state == "untrusted" else ""))
                    continue
                tools = tuple(ToolView(n, self._tools[n].description, self._tools[n].read_only_hint)
                              for n in self._server_tools.get(spec.name, ()) if n in self._tools)
                resources = tuple(ResourceView(str(r.uri), _resource_text(r)) for r in connection.resources)
                out.append(ServerStatus(spec.name, spec.source, spec.transport, self.redact(spec.target()),
                                        connection.state, self.redact(connection.detail), tools, resources,
                                        connection.pid))
        return out

    # -- what agents get ------------------------------------------------------------------

    def tools(self) -> list["McpTool"]:
        """Every tool a server offered since it was last ready (a server that
        died keeps its tools listed; a call then says it is not running)."""
        with self._changed:
            return list(self._tools.values())

    def tool(self, name: str) -> "McpTool | None":
        with self._changed:
            return self._tools.get(name)

    def resource_index(self) -> list[str]:
        """``- @server:uri — description`` for each resource of a ready server."""
        lines = []
        with self._changed:
            for spec in self.config.servers:
                connection = self._connections.get(spec.name)
                if connection is None or connection.state != "ready":
                    continue
                for resource in connection.resources:
                    text = _resource_text(resource)
                    line = f"- @{spec.name}:{resource.uri}" + (f" — {text}" if text else "")
                    lines.append(line if len(line) <= MAX_INDEX_LINE else line[: MAX_INDEX_LINE - 1] + "…")
        return lines

    def resource_uris(self) -> list[str]:
        """``server:uri`` of every indexed resource (for completion in the input)."""
        return [line[3:].split(" — ", 1)[0] for line in self.resource_index()]

    # -- calls --------------------------------------------------------------------------------

    def call_tool(self, server: str, tool: str, arguments: dict, seconds: float, cancel: threading.Event):
        connection = self._connections.get(server)
        if connection is None or self._loop is None:
            raise ToolError(f"MCP server {server} is not running; /mcp shows it")
        return self._wait(self._loop.submit(connection.call_tool(tool, arguments, seconds)), seconds, cancel,
                          f"mcp__{server}__{tool}")

    def read_resource(self, server: str, uri: str, seconds: float, cancel: threading.Event | None = None):
        connection = self._connections.get(server)
        if connection is None or self._loop is None:
            raise ToolError(f"MCP server {server} is not running; /mcp shows it")
        return self._wait(self._loop.submit(connection.read_resource(uri, seconds)), seconds,
                          cancel or threading.Event(), f"@{server}:{uri}")

    def _wait(self, future: Future, seconds: float, cancel: threading.Event, what: str):
        from paicli_tui.mcp.connection import ServerUnavailable

        deadline = time.monotonic() + seconds + 1.0  # the SDK's own timeout fires first
        while True:
            if cancel.is_set():
                future.cancel()
                raise ToolStopped(f"{what} cancelled")
            left = deadline - time.monotonic()
            if left <= 0:
                future.cancel()
                raise ToolStopped(f"{what} stopped after {seconds:g} s (deadline)")
            try:
                return future.result(timeout=min(POLL_S, left))
            except FutureTimeout:
                continue
            except ServerUnavailable as exc:
                raise ToolError(str(exc)) from None

    # -- ending -------------------------------------------------------------------------------

    def close(self, timeout: float = CLOSE_S) -> None:
        """Stop every server (the SDK closes stdin, then SIGTERM, then SIGKILL
        for a stdio server) and the loop; what outlives ``timeout`` is left
        to the session's kill of LIVE_GROUPS. Closing twice does nothing."""
        if self._closed:
            return
        self._closed = True
        loop = self._loop
        if loop is None:
            return
        with self._changed:
            connections = list(self._connections.values())
        for connection in connections:
            loop.call_soon(connection.stop)
        self._wait_for_runs(timeout)
        killed = False
        for connection in connections:
            # A server still closing when the time ran out, or a daemon it
            # left behind: nothing of it outlives the session.
            killed = bool(connection.kill_leftovers()) or killed
        if killed:
            # A killed server's task ends at once and records its "stopped".
            self._wait_for_runs(KILLED_S)
        loop.stop()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)

    def _wait_for_runs(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        for run in list(self._runs.values()):
            try:
                run.result(timeout=max(0.0, deadline - time.monotonic()))
            except Exception:  # noqa: BLE001 - closing: its state says what happened
                pass


def _resource_text(resource) -> str:
    text = resource.description or resource.title or resource.name or ""
    return " ".join(str(text).split())
