"""A throwaway HTTP server on 127.0.0.1 for web-tool tests."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator


@contextmanager
def serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on a free port; yields the base URL."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


class SearchBackend(BaseHTTPRequestHandler):
    """A SearXNG-like backend: ``/search`` finds one page, ``/page`` serves it."""

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        if self.path.startswith("/search"):
            body = json.dumps({"results": [{"title": "Doc", "url": f"{base}/page", "content": "the doc"}]})
            content_type = "application/json"
        elif self.path == "/page":
            body, content_type = "the secret page body", "text/plain"
        else:
            self.send_error(404)
            return
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
