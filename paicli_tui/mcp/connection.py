"""One MCP server's connection, run as one task on the engine loop.

The task opens the transport (the SDK's stdio or streamable HTTP client),
initializes the SDK's ``ClientSession``, lists the tools and resources, and
then holds everything open until it is told to stop or the server dies. The
SDK's context managers must be entered and left in one task, which is why
the whole lifetime is one coroutine; calls come from other tasks through
``call_tool`` and ``read_resource``.

A stdio server is started through ``sh -c 'echo $$ >PIDFILE; exec …'`` so
paicli knows its process id: the process is the server itself after the
``exec``. The SDK starts it in a session of its own (its own process group);
the group is registered with ``tools/process.LIVE_GROUPS`` while it runs, so
a hard exit kills it like a command's group, and it is watched
(``waitid`` without reaping) so a server that dies is noticed at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import time
from datetime import timedelta
from pathlib import Path
from typing import Callable

import anyio
import httpx
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

from paicli_tui import __version__
from paicli_tui.mcp.specs import ServerSpec
from paicli_tui.tools.proc_table import MARKER_VARIABLE, leftovers
from paicli_tui.tools.process import LIVE_GROUPS

STARTING, READY, FAILED, EXITED = "starting", "ready", "failed", "exited"
STOPPING, STOPPED, UNTRUSTED = "stopping", "stopped", "untrusted"
#: Bounds that keep one server from crowding a request or the prompt.
MAX_TOOLS = 100
MAX_RESOURCES = 100
WATCH_S = 0.25
PID_WAIT_S = 1.0
_WRAPPER = 'echo $$ > "$0"; exec "$@"'
CLIENT_INFO = types.Implementation(name="paicli", version=__version__)


class ServerUnavailable(Exception):
    """The server cannot take calls now; ``str()`` says why in one line."""


class ServerConnection:
    def __init__(self, spec: ServerSpec, *, startup_timeout: float, log_path: Path,
                 on_change: Callable[["ServerConnection"], None]) -> None:
        self.spec = spec
        self.startup_timeout = startup_timeout
        self.log_path = log_path
        self.on_change = on_change
        self.state = STARTING
        self.detail = ""
        self.tools: list[types.Tool] = []
        self.resources: list[types.Resource] = []
        self.pid = 0
        self._session: ClientSession | None = None
        self._stop: asyncio.Event | None = None
        self._pid_file: Path | None = None
        self._startup: anyio.CancelScope | None = None
        self._gone: asyncio.Event | None = None
        self._started = 0.0
        #: In the server's environment: its descendants carry it wherever
        #: they go (a daemon's setsid leaves the process group, not this).
        self._marker = f"mcp-{os.getpid()}-{id(self):x}-{time.monotonic_ns()}"
        self._garbage = ""

    # -- lifetime (the connection's own task) --------------------------------------

    async def run(self) -> None:
        self._stop = asyncio.Event()
        self._gone = asyncio.Event()
        self._started = time.monotonic()
        self._set(STARTING, "")
        if self.spec.problem:
            self._set(FAILED, self.spec.problem)
            return
        log = None
        try:
            async with contextlib.AsyncExitStack() as stack:
                if self.spec.transport == "stdio":
                    log = open(self.log_path, "w", encoding="utf-8", errors="replace")
                    os.chmod(self.log_path, 0o600)
                    read, write = await stack.enter_async_context(stdio_client(self._stdio_parameters(), errlog=log))
                    await self._claim_pid()
                else:
                    client = await stack.enter_async_context(httpx.AsyncClient(
                        headers=dict(self.spec.headers), timeout=httpx.Timeout(self.startup_timeout, read=300)))
                    read, write, _ = await stack.enter_async_context(
                        streamable_http_client(self.spec.url, http_client=client))
                session = await stack.enter_async_context(ClientSession(read, write, client_info=CLIENT_INFO,
                                                                        message_handler=self._on_message))
                # The state is set before the contexts close: closing a stuck
                # server takes the SDK seconds (stdin, SIGTERM, SIGKILL).
                if not await self._initialize(session) or self._stop.is_set():
                    return
                self._session = session
                self._set(READY, _counts(len(self.tools), len(self.resources)))
                await self._hold()
                self._session = None
        except ServerUnavailable as exc:
            self._failed(str(exc))
        except Exception as exc:  # noqa: BLE001 - any failure of one server is that server's state
            self._failed(_describe(exc))
        finally:
            self._session = None
            if log is not None:
                log.close()
            self.kill_leftovers()
            if self.pid:
                LIVE_GROUPS.discard(self.pid)
            if self.state in (STARTING, READY, STOPPING):
                self._set(STOPPED, "")

    async def _initialize(self, session: ClientSession) -> bool:
        """Initialize and list, within the startup timeout; False (with the
        state set) when that failed. ``stop`` cancels it."""
        with anyio.CancelScope() as self._startup:
            try:
                # Counted from the start of run: spawning the process is part of starting.
                with anyio.fail_after(max(0.0, self._started + self.startup_timeout - time.monotonic())):
                    init = await session.initialize()
                    self.tools = await self._list_tools(session)
                    if init.capabilities.resources is not None:
                        self.resources = await self._list_resources(session)
                return True
            except TimeoutError:
                self._failed(f"did not start within {self.startup_timeout:g} s (mcp.startup_timeout)")
            except anyio.get_cancelled_exc_class():
                if not self._garbage:
                    raise
                self._failed(self._garbage)
            except Exception as exc:  # noqa: BLE001 - as in run
                self._failed(_describe(exc))
            finally:
                self._startup = None
        return False

    async def _on_message(self, message) -> None:
        """The SDK hands over what it could not parse as an Exception: a
        server that writes anything but JSON-RPC on stdout (a print, a log
        line) breaks the protocol, so it fails with what it wrote."""
        if not isinstance(message, Exception) or self._garbage:
            return
        errors = getattr(message, "errors", None)
        line = str(errors()[0].get("input", "")) if callable(errors) and errors() else str(message)
        self._garbage = (f"wrote something that is not JSON-RPC on stdout: {line[:80]!r} "
                         "(a server must log to stderr)")
        if self._startup is not None:
            self._startup.cancel()
        elif self.state == READY:
            self._set(FAILED, self._garbage)
            if self._stop is not None:
                self._stop.set()

    def kill_leftovers(self) -> list[int]:
        """SIGKILL whatever the server started that still runs after it was
        closed: its process group and every process carrying its marker,
        daemons that left the group included. Returns the pids killed."""
        if not self.pid:
            return []
        found = leftovers(self.pid, self._marker)
        killed = []
        for pid in (*found.in_group, *found.escaped):
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except OSError:
                pass  # ended meanwhile
        return killed

    def stop(self) -> None:
        """Ask the task to leave its contexts (closing the server), also
        while it is still starting; call on the loop."""
        if self._stop is not None:
            self._stop.set()
        if self._startup is not None:
            self._startup.cancel()
        if self.state in (STARTING, READY):
            self._set(STOPPING, "")  # closing a server can take the SDK seconds

    async def _hold(self) -> None:
        assert self._stop is not None
        while not self._stop.is_set():
            status = self._exit_status()
            if status is not None:
                self._set(EXITED, f"{status}{self._stderr_tail()}")
                return
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._stop.wait(), WATCH_S)

    def _failed(self, reason: str) -> None:
        if self.state in (EXITED, FAILED):
            return
        status = self._exit_status()
        if status is not None and "exited" not in reason:
            reason = f"{reason} ({status})"
        self._set(EXITED if self.state == READY else FAILED, reason + self._stderr_tail())

    def _set(self, state: str, detail: str) -> None:
        was, self.state, self.detail = self.state, state, detail
        if was == READY and state != READY and self._gone is not None:
            self._gone.set()
        self.on_change(self)

    # -- calls (other tasks) ----------------------------------------------------------

    async def call_tool(self, name: str, arguments: dict, timeout: float) -> types.CallToolResult:
        session = self._ready_session()
        return await self._guarded(session.call_tool(name, arguments, read_timeout_seconds=timedelta(seconds=timeout)))

    async def read_resource(self, uri: str, timeout: float) -> types.ReadResourceResult:
        session = self._ready_session()
        try:
            with anyio.fail_after(timeout):
                return await self._guarded(session.read_resource(uri))  # type: ignore[arg-type]  # str works too
        except TimeoutError:
            raise ServerUnavailable(f"{self.spec.name} did not answer within {timeout:g} s") from None

    async def _guarded(self, request):
        """``request``'s result; ServerUnavailable as soon as the connection
        goes away meanwhile (a dead HTTP server never answers, it just stops)."""
        assert self._gone is not None
        task = asyncio.ensure_future(request)
        gone = asyncio.ensure_future(self._gone.wait())
        try:
            done, _ = await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            if not task.done():
                task.cancel()
        if task not in done:
            raise ServerUnavailable(f"MCP server {self.spec.name} {self.state}"
                                    + (f": {self.detail}" if self.detail else "") + "; /mcp restarts it")
        try:
            return task.result()
        except McpError as exc:
            raise self._call_failed(exc) from None
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream) as exc:
            raise self._call_failed(exc) from None

    def _ready_session(self) -> ClientSession:
        if self.state != READY or self._session is None:
            raise ServerUnavailable(f"MCP server {self.spec.name} is {self.state}"
                                    + (f" ({self.detail})" if self.detail and self.state != STARTING else "")
                                    + "; /mcp shows it and restarts it")
        return self._session

    def _call_failed(self, exc: BaseException) -> ServerUnavailable:
        """The server's own error, or — when the connection is gone — the
        server marked exited, its task told to close what is left."""
        if isinstance(exc, McpError) and exc.error.code == httpx.codes.REQUEST_TIMEOUT:
            return ServerUnavailable(f"no answer from MCP server {self.spec.name} in time (deadline)")
        if isinstance(exc, McpError) and exc.error.code != types.CONNECTION_CLOSED:
            return ServerUnavailable(f"MCP error {exc.error.code}: {exc.error.message}")
        status = self._exit_status()
        reason = f"connection lost ({status})" if status else "connection lost"
        if self.state == READY:
            self._set(EXITED, reason + self._stderr_tail())
            self.stop()
        return ServerUnavailable(f"MCP server {self.spec.name} {reason}; /mcp restarts it")

    # -- helpers ------------------------------------------------------------------------

    def _stdio_parameters(self) -> StdioServerParameters:
        spec = self.spec
        env = {**dict(spec.env), MARKER_VARIABLE: self._marker}
        search_path = env.get("PATH", os.environ.get("PATH", ""))
        command = spec.command
        if "/" in command and not os.path.isabs(command):
            command = os.path.join(spec.cwd or ".", command)
        found = shutil.which(command, path=search_path)
        if found is None:
            raise ServerUnavailable(f"command {spec.command!r} not found")
        self._pid_file = self.log_path.with_suffix(".pid")
        self._pid_file.unlink(missing_ok=True)
        return StdioServerParameters(command="/bin/sh", args=["-c", _WRAPPER, str(self._pid_file), found, *spec.args],
                                     env=env, cwd=spec.cwd or None)

    async def _claim_pid(self) -> None:
        """Read the pid the wrapper wrote before its ``exec`` (it does so at
        once; a server that is still not there after PID_WAIT_S is left to
        the SDK's own ending)."""
        path = self._pid_file
        if path is None:
            return
        deadline = time.monotonic() + PID_WAIT_S
        while time.monotonic() < deadline:
            try:
                text = path.read_text().strip()
            except OSError:
                text = ""
            if text.isdigit():
                self.pid = int(text)
                path.unlink(missing_ok=True)
                LIVE_GROUPS.add(self.pid)  # started with start_new_session: its group id is its pid
                return
            await asyncio.sleep(0.01)

    def _exit_status(self) -> str | None:
        """"exited with code N" / "killed by signal N" once the server
        process ended (it is not reaped here: the SDK does that)."""
        if not self.pid or not hasattr(os, "waitid"):
            return None
        try:
            info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return "exited"
        except OSError:
            return None
        if info is None:
            return None
        if info.si_code == os.CLD_EXITED:
            return f"exited with code {info.si_status}"
        return f"killed by signal {info.si_status}"

    def _stderr_tail(self) -> str:
        try:
            lines = [line.strip() for line in self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()]
        except OSError:
            return ""
        last = next((line for line in reversed(lines) if line), "")
        if not last:
            return ""
        return f"; stderr: {last[:160]}"

    async def _list_tools(self, session: ClientSession) -> list[types.Tool]:
        tools: list[types.Tool] = []
        cursor = None
        while len(tools) < MAX_TOOLS:
            page = await session.list_tools(cursor=cursor) if cursor else await session.list_tools()
            tools.extend(page.tools)
            cursor = page.nextCursor
            if not cursor:
                break
        return tools[:MAX_TOOLS]

    async def _list_resources(self, session: ClientSession) -> list[types.Resource]:
        resources: list[types.Resource] = []
        cursor = None
        while len(resources) < MAX_RESOURCES:
            page = await session.list_resources(cursor=cursor) if cursor else await session.list_resources()
            resources.extend(page.resources)
            cursor = page.nextCursor
            if not cursor:
                break
        return resources[:MAX_RESOURCES]


def _counts(tools: int, resources: int) -> str:
    return f"{tools} tool{'s' * (tools != 1)}, {resources} resource{'s' * (resources != 1)}"


def _describe(exc: BaseException) -> str:
    """One line for an exception, looking inside exception groups (the SDK's
    task groups wrap what went wrong)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, McpError) and exc.error.code == types.CONNECTION_CLOSED:
        return "the server closed the connection while starting"
    if isinstance(exc, McpError):
        return f"MCP error {exc.error.code}: {exc.error.message}"
    if isinstance(exc, httpx.ConnectError):
        return f"cannot connect ({exc})"
    if isinstance(exc, httpx.HTTPStatusError):
        return f"HTTP {exc.response.status_code} from {exc.request.url}"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
