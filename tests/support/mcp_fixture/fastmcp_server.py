"""A small MCP server for tests, written with the SDK's high-level server
API (FastMCP). Run it as a program:

    python tests/support/mcp_fixture/fastmcp_server.py [--http PORT] [--pidfile F] [--calls F] [--hang] [--name N]

stdio by default, streamable HTTP on 127.0.0.1:PORT with ``--http``.
``--pidfile`` gets the server's pid, ``--calls`` a line per tool call as it
starts and ends (the order calls ran in), ``--hang`` never answers (a server
that never starts). Imports only the SDK, never paicli.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import anyio
from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

READ_ONLY = ToolAnnotations(readOnlyHint=True)
GUIDE = "GUIDE-CONTENT: indent with tabs; run the tests before you push. More: https://guide.example.invalid/more"
BIG_CHARS = 50_000


def build(name: str, calls: str | None, host: str = "127.0.0.1", port: int = 8000) -> FastMCP:
    server = FastMCP(name, host=host, port=port, log_level="WARNING")

    def record(line: str) -> None:
        if calls:
            with open(calls, "a", encoding="utf-8") as handle:
                handle.write(line + "\n")

    @server.tool(annotations=READ_ONLY)
    def echo(text: str) -> str:
        """Repeat the text back."""
        record(f"echo {text}")
        return f"echo: {text}"

    @server.tool(annotations=READ_ONLY)
    def add(a: int, b: int) -> int:
        """Add two whole numbers."""
        record(f"add {a} {b}")
        return a + b

    @server.tool()
    async def note(text: str, delay: float = 0.0) -> str:
        """Write a note (changes state: not read-only)."""
        record(f"start {text}")
        await anyio.sleep(delay)  # the server stays free for other requests meanwhile
        record(f"end {text}")
        return f"noted {text}"

    @server.tool()
    def crash() -> str:
        """Dies in the middle of the call."""
        record("crash")
        sys.stderr.write("about to crash on purpose\n")
        sys.stderr.flush()
        os._exit(7)

    @server.tool()
    def fail(message: str) -> str:
        """Always fails with the message."""
        raise ValueError(message)

    @server.tool()
    async def slow(seconds: float) -> str:
        """Takes its time."""
        await anyio.sleep(seconds)
        return "slow done"

    @server.resource("docs://guide", description="The project guide")
    def guide() -> str:
        return GUIDE

    @server.resource("docs://big", description="A very long document")
    def big() -> str:
        return "x" * BIG_CHARS

    return server


def _daemonize(tag: str) -> None:
    """A grandchild in a session of its own, as daemons do: no process group
    kill reaches it. Its command line carries ``tag`` so a test can find it
    from outside, whatever pid namespace it is in."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", f"daemon:{tag}"])
        os._exit(0)
    os.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, default=0)
    parser.add_argument("--pidfile")
    parser.add_argument("--calls")
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--name", default="test-server")
    parser.add_argument("--daemon", help="leave a daemon (double fork, setsid) whose argv holds this tag")
    parser.add_argument("--garbage", help="write this line to stdout before speaking JSON-RPC")
    args = parser.parse_args()
    if args.daemon:
        _daemonize(args.daemon)
    if args.garbage:
        sys.stdout.write(args.garbage + "\n")
        sys.stdout.flush()
    if args.pidfile:
        with open(args.pidfile, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")
    if args.hang:
        while True:
            time.sleep(60)
    server = build(args.name, args.calls, port=args.http or 8000)
    server.run("streamable-http" if args.http else "stdio")


if __name__ == "__main__":
    main()
