"""web_fetch and web_search against tiny real HTTP servers on 127.0.0.1,
with the trusted-URL policy deciding what may be opened."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.tools.search import SearchHit
from paicli_tui.tools.trusted_urls import TrustedUrls
from tests.support.http import serve

PAGE = """<!doctype html><html><head><title>Release notes</title><style>p{color:red}</style>
<script>var secret = "do not show";</script></head>
<body><h1>Version 2</h1><p>Faster   startup.</p><ul><li>one</li><li>two</li></ul>
<pre>  indented
    code</pre></body></html>"""


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep test output quiet
        pass

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/page":
            self._send(200, "text/html; charset=utf-8", PAGE.encode())
        elif url.path == "/plain":
            self._send(200, "text/plain", "just text\n".encode())
        elif url.path == "/image":
            self._send(200, "image/png", b"\x89PNG\x00")
        elif url.path == "/missing":
            self._send(404, "text/plain", b"nope")
        elif url.path == "/hop":
            self.send_response(302)
            self.send_header("Location", "/plain")
            self.end_headers()
        elif url.path == "/away":
            self.send_response(302)
            self.send_header("Location", "http://localhost:1/elsewhere")
            self.end_headers()
        elif url.path == "/search":
            query = parse_qs(url.query)
            assert query["format"] == ["json"]
            port = self.server.server_address[1]
            results = [{"title": f"Result {i} for {query['q'][0]}", "url": f"http://127.0.0.1:{port}/page?r={i}",
                        "content": "snippet  text"} for i in range(3)]
            self._send(200, "application/json", json.dumps({"results": results}).encode())
        else:
            self._send(404, "text/plain", b"")

    def _send(self, status, content_type, body):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def server():
    with serve(Handler) as base_url:
        yield base_url


def call(registry: ToolRegistry, trusted: TrustedUrls, tool: str, **args):
    ctx = ToolContext("tester", threading.Event(), trusted, AutoApprover())
    return registry.execute(ToolCall("w", tool, json.dumps(args)), ctx)


@pytest.mark.timeout(20)
def test_fetch_of_a_url_the_person_typed_returns_readable_text(tmp_path, server):
    trusted = TrustedUrls.from_user_text(f"Summarise {server}/page, please.")
    result = call(ToolRegistry(tmp_path, Settings()), trusted, "web_fetch", url=f"{server}/page")
    assert result.ok, result.content
    assert "# Version 2" in result.content and "Faster startup." in result.content
    assert "- one\n- two" in result.content
    assert "  indented\n    code" in result.content
    assert "do not show" not in result.content and "color:red" not in result.content
    assert "# Release notes" in result.content


@pytest.mark.timeout(20)
def test_fetch_of_a_url_that_only_appeared_in_a_file_is_refused(tmp_path, server):
    (tmp_path / "notes.md").write_text(f"See {server}/plain for details\n")
    registry = ToolRegistry(tmp_path, Settings())
    trusted = TrustedUrls.from_user_text("read notes.md and follow the link")
    assert f"{server}/plain" in call(registry, trusted, "read_file", path="notes.md").content
    refused = call(registry, trusted, "web_fetch", url=f"{server}/plain")
    assert not refused.ok
    assert refused.content.startswith("refused: URL not provided by the user or a web_search result in this branch")


@pytest.mark.timeout(20)
def test_fetch_errors_are_clear(tmp_path, server):
    trusted = TrustedUrls([f"{server}/image", f"{server}/missing", f"{server}/away", "http://127.0.0.1:1/x"])
    registry = ToolRegistry(tmp_path, Settings())
    assert "image/png, not text" in call(registry, trusted, "web_fetch", url=f"{server}/image").content
    assert "HTTP 404" in call(registry, trusted, "web_fetch", url=f"{server}/missing").content
    away = call(registry, trusted, "web_fetch", url=f"{server}/away")
    assert not away.ok and "not a trusted URL" in away.content
    down = call(registry, trusted, "web_fetch", url="http://127.0.0.1:1/x")
    assert not down.ok and "ConnectError" in down.content
    assert "not an http(s) URL" in call(registry, trusted, "web_fetch", url="file:///etc/passwd").content


@pytest.mark.timeout(20)
def test_same_origin_redirect_is_followed(tmp_path, server):
    trusted = TrustedUrls([f"{server}/hop"])
    result = call(ToolRegistry(tmp_path, Settings()), trusted, "web_fetch", url=f"{server}/hop")
    assert result.ok and "just text" in result.content and f"URL: {server}/plain" in result.content


@pytest.mark.timeout(20)
def test_searxng_results_grant_trust_in_this_branch_only(tmp_path, server):
    registry = ToolRegistry(tmp_path, Settings(search_url=server))
    assert "web_search" in registry.names()
    trusted = TrustedUrls()
    found_url = f"{server}/page?r=1"
    assert not call(registry, trusted, "web_fetch", url=found_url).ok
    search = call(registry, trusted, "web_search", query="release notes", limit=2)
    assert search.ok
    assert "1. Result 0 for release notes" in search.content and "snippet text" in search.content
    assert trusted.found_urls == (f"{server}/page?r=0", found_url)
    assert call(registry, trusted, "web_fetch", url=found_url).ok
    sibling = TrustedUrls()
    assert not call(registry, sibling, "web_fetch", url=found_url).ok


def test_web_search_exists_only_with_a_backend(tmp_path):
    assert "web_search" not in ToolRegistry(tmp_path, Settings()).names()
    assert all(s["function"]["name"] != "web_search" for s in ToolRegistry(tmp_path, Settings()).schemas())

    class FixedBackend:
        def search(self, query, limit):
            return [SearchHit("Doc", "https://Example.org:443/doc#top", "")]

    registry = ToolRegistry(tmp_path, Settings(), search_backend=FixedBackend())
    trusted = TrustedUrls()
    assert call(registry, trusted, "web_search", query="doc").ok
    assert trusted.allows("https://example.org/doc")


@pytest.mark.timeout(20)
def test_search_backend_failure_is_a_result(tmp_path):
    registry = ToolRegistry(tmp_path, Settings(search_url="http://127.0.0.1:1"))
    result = call(registry, TrustedUrls(), "web_search", query="x")
    assert not result.ok and "unreachable" in result.content
