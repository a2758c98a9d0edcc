"""The loopback model server in a process of its own, for the pty benches.

In the bench's own process its threads shared the interpreter with the
thread reading the app's output and with the parse of that output: the
more an app drew, the later its answers came and the later the reader
stamped what arrived. Apart, neither depends on the app measured.
"""

from __future__ import annotations

import contextlib
import multiprocessing
from typing import Callable, Iterator

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.server import LoopbackServer


class Served:
    """The server's address and how many requests it has answered so far."""

    def __init__(self, url: str, count) -> None:
        self.url = url
        self._count = count

    @property
    def requests(self) -> int:
        return self._count.value


@contextlib.contextmanager
def server_apart(reply: Callable[[object], Reply]) -> Iterator[Served]:
    """Serve ``reply`` (called in the server's process, once per request)."""
    context = multiprocessing.get_context("fork")
    count = context.Value("i", 0)
    here, there = context.Pipe()

    def counted(request) -> Reply:
        with count.get_lock():
            count.value += 1
        return reply(request)

    def serve(conn) -> None:
        with LoopbackServer(Script(default=counted)) as server:
            conn.send(server.base_url)
            conn.recv()

    process = context.Process(target=serve, args=(there,), daemon=True)
    process.start()
    try:
        yield Served(here.recv(), count)
    finally:
        here.send("stop")
        process.join(5)
