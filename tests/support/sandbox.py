"""Helpers for tests of the command sandbox: whether bubblewrap starts
here (PAICLI_REQUIRE_SANDBOX=1, or CI=true as CI sets it, makes "cannot" a
failure, so CI never passes with the sandbox tests skipped), and a
loopback server that records every request that reaches it."""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

import pytest

from paicli_tui.sandbox.probe import probe


def require_sandbox() -> None:
    status = probe()
    if status.ok:
        return
    if os.environ.get("PAICLI_REQUIRE_SANDBOX") == "1" or os.environ.get("CI") == "true":
        pytest.fail(f"the sandbox cannot start: {status.reason}")
    pytest.skip(f"the sandbox cannot start here: {status.reason}")


class Collector:
    def __init__(self) -> None:
        self.requests: list[str] = []
        self.url = ""


@contextmanager
def collector() -> Iterator[Collector]:
    """A server on 127.0.0.1 that keeps the path and body of every request."""
    seen = Collector()

    class Record(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def _record(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode(errors="replace") if length else ""
            seen.requests.append(f"{self.command} {self.path} {body}")
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        do_GET = do_POST = _record

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Record)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    seen.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield seen
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
