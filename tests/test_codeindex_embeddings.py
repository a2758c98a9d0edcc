"""Optional semantic ranking against a real HTTP /v1/embeddings endpoint on
127.0.0.1: chunks get vectors while indexing, a query's vector re-ranks the
lexical candidates; a server without embeddings leaves the index lexical."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from paicli_tui.knowledge.codeindex.embeddings import Embedder
from paicli_tui.knowledge.codeindex.indexer import Indexer
from paicli_tui.knowledge.codeindex.search import search_code
from paicli_tui.config.settings import Settings
from paicli_tui.knowledge.memory.database import Database

#: A toy embedding: one dimension per concept, found by the words that mean it.
CONCEPTS = {"money": ("cost", "price", "discount", "amount", "cheaper"),
            "status": ("status", "state", "shipped", "pending")}


def _vector(text: str) -> list[float]:
    words = text.lower().replace("_", " ").split()
    return [float(sum(any(w.startswith(c) for c in cues) for w in words)) + 0.01 for cues in CONCEPTS.values()]


class _Embeddings(BaseHTTPRequestHandler):
    calls: list[dict] = []

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).calls.append(body)
        if not self.path.endswith("/v1/embeddings") or self.server.refuse:  # type: ignore[attr-defined]
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = [{"index": i, "embedding": _vector(text)} for i, text in enumerate(body["input"])]
        payload = json.dumps({"object": "list", "data": data}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Embeddings)
    httpd.refuse = False  # type: ignore[attr-defined]
    _Embeddings.calls = []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "orders.py").write_text(
        "def order_status(order):\n    # the order's order state, per order line of the order\n"
        "    return order.state\n")
    (ws / "pricing.py").write_text("def apply_discount(order):\n    return order.amount * 0.9\n")
    return ws


def test_embeddings_re_rank_the_lexical_candidates(workspace, tmp_path, server):
    lexical_db = Database(tmp_path / "lexical.sqlite3")
    Indexer(lexical_db, workspace).build()
    assert search_code(lexical_db, "what does an order cost")[0].path == "orders.py"  # "order" everywhere

    embedder = Embedder(f"http://127.0.0.1:{server.server_port}/v1", "embed-model")
    db = Database(tmp_path / "semantic.sqlite3")
    report = Indexer(db, workspace, embedder=embedder).build()
    assert report.embeddings == "2 chunks embedded"
    assert db.connection().execute("SELECT count(*) FROM vectors").fetchone()[0] == 2
    hits = search_code(db, "what does an order cost", embedder=embedder)
    assert [h.path for h in hits] == ["pricing.py", "orders.py"]
    assert _Embeddings.calls[-1] == {"model": "embed-model", "input": ["what does an order cost"]}
    assert Indexer(db, workspace, embedder=embedder).build().embeddings == "0 chunks embedded"  # already there


def test_a_server_without_embeddings_leaves_the_index_lexical(workspace, tmp_path, server):
    server.refuse = True
    embedder = Embedder(f"http://127.0.0.1:{server.server_port}/v1", "m")
    db = Database(tmp_path / "k.sqlite3")
    report = Indexer(db, workspace, embedder=embedder).build()
    assert report.embeddings.startswith("unavailable: ") and "HTTP 404" in report.embeddings
    assert search_code(db, "order cost", embedder=embedder)[0].path == "orders.py"
    asked = len(_Embeddings.calls)
    search_code(db, "order cost", embedder=embedder)
    assert len(_Embeddings.calls) == asked  # not asked again once refused


def test_which_providers_are_asked_for_embeddings():
    assert Embedder.from_settings(Settings(provider="demo")) is None
    assert Embedder.from_settings(Settings(provider="openai")) is None  # remote: not unless asked
    assert Embedder.from_settings(Settings(provider="openai", index_embeddings="on")).url == "https://api.openai.com/v1/embeddings"
    local = Embedder.from_settings(Settings(provider="llamacpp"))
    assert local.url == "http://127.0.0.1:8080/v1/embeddings" and local.model == "local"
    assert Embedder.from_settings(Settings(provider="ollama", embedding_model="nomic-embed-text")).model == "nomic-embed-text"
    assert Embedder.from_settings(Settings(provider="llamacpp", index_embeddings="off")) is None
