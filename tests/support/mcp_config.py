"""Real MCP servers for tests: the FastMCP server in ``mcp_fixture/`` over
stdio (paicli starts it from config.toml or .mcp.json) and over streamable
HTTP on 127.0.0.1 (the test starts it), and the config that names them."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.support.procs import alive, kill_quietly

SERVER = Path(__file__).resolve().parent / "mcp_fixture" / "fastmcp_server.py"


def stdio_table(name: str, *args: str, **options) -> str:
    """A ``[mcp.servers.NAME]`` table starting the test server."""
    lines = [f"[mcp.servers.{name}]", f"command = {json.dumps(sys.executable)}",
             f"args = {json.dumps([str(SERVER), *args])}"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in options.items()]
    return "\n".join(lines) + "\n"


def http_table(name: str, url: str, **options) -> str:
    lines = [f"[mcp.servers.{name}]", f"url = {json.dumps(url)}"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in options.items()]
    return "\n".join(lines) + "\n"


def stdio_json(*args: str) -> dict:
    """One server entry of a ``.mcp.json``."""
    return {"command": sys.executable, "args": [str(SERVER), *args]}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class HttpServer:
    """The test server on streamable HTTP, for the length of a ``with``."""

    def __init__(self, *args: str) -> None:
        self.port = free_port()
        self.args = args
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def __enter__(self) -> "HttpServer":
        self.process = subprocess.Popen([sys.executable, str(SERVER), "--http", str(self.port), *self.args],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return self
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.1)
        self.__exit__()
        raise AssertionError("the HTTP MCP test server did not start")

    def __exit__(self, *exc) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)


def pids_in(path: Path) -> list[int]:
    try:
        return [int(word) for word in path.read_text().split()]
    except OSError:
        return []


def assert_all_gone(pidfile: Path, expected: int, seconds: float = 5.0) -> None:
    """Every server that wrote its pid to ``pidfile`` has ended; kill
    leftovers after the check so a failing test leaves nothing behind."""
    pids = pids_in(pidfile)
    try:
        assert len(pids) >= expected, f"expected {expected} server pids in {pidfile}, found {pids}"
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and any(alive(pid) for pid in pids):
            time.sleep(0.05)
        left = [pid for pid in pids if alive(pid)]
        assert not left, f"MCP server processes left running after paicli exited: {left}"
    finally:
        kill_quietly(pids)
