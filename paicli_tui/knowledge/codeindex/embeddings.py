"""Optional semantic ranking: chunk embeddings from the provider's
OpenAI-compatible ``/v1/embeddings`` (OpenAI, llama.cpp, Ollama serve it).

Vectors are stored normalised, as float32, beside their chunk; search
blends cosine similarity into the BM25 ranking of the best lexical
candidates (``search.py``). Whether a provider serves embeddings is found
by asking: a refusal (404, 400, no vectors) or no connection turns them
off for the session and the index stays lexical, which works offline.
"""

from __future__ import annotations

import math
import threading
from array import array
from typing import TYPE_CHECKING

import httpx

if TYPE_CHECKING:
    from paicli_tui.config.settings import Settings
    from paicli_tui.knowledge.memory.database import Database

BATCH = 64
#: Characters of a chunk sent to be embedded (models take a few thousand tokens).
MAX_INPUT_CHARS = 6000


class EmbeddingsUnavailable(Exception):
    """The provider did not give embeddings; ``str()`` says why in one line."""


class Embedder:
    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, timeout: float = 60.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.model = model
        self.url = base_url.rstrip("/") + "/embeddings"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(headers=headers, timeout=timeout, transport=transport)
        self.unavailable: str | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: "Settings") -> "Embedder | None":
        """An embedder when the settings allow one: ``index_embeddings`` on,
        or auto with a local server (a remote provider would be sent the
        whole code base unasked). None for the demo model and when off."""
        from paicli_tui.config.settings import is_local_url

        choice = getattr(settings, "index_embeddings", "auto")
        if choice == "off" or settings.provider == "demo":
            return None
        resolved = settings.resolved()
        if choice == "auto" and not is_local_url(resolved.base_url):
            return None
        model = getattr(settings, "embedding_model", None) or resolved.model
        return cls(resolved.base_url, model, api_key=resolved.api_key(), timeout=settings.read_timeout)

    def embed(self, texts: list[str]) -> list[array]:
        """One normalised vector per text; EmbeddingsUnavailable otherwise
        (and every later call fails the same way without asking again)."""
        if self.unavailable is not None:
            raise EmbeddingsUnavailable(self.unavailable)
        try:
            response = self._http.post(self.url, json={"model": self.model, "input": [t[:MAX_INPUT_CHARS] for t in texts]})
        except httpx.HTTPError as exc:
            raise self._off(f"{self.url} unreachable ({type(exc).__name__})") from None
        if response.status_code != 200:
            raise self._off(f"{self.url} answered HTTP {response.status_code}")
        try:
            data = sorted(response.json()["data"], key=lambda item: item.get("index", 0))
            vectors = [_normalised(item["embedding"]) for item in data]
        except (ValueError, KeyError, TypeError, AttributeError):
            raise self._off(f"{self.url} did not return embeddings") from None
        if len(vectors) != len(texts) or any(len(v) == 0 for v in vectors):
            raise self._off(f"{self.url} returned {len(vectors)} embeddings for {len(texts)} inputs")
        return vectors

    def _off(self, reason: str) -> EmbeddingsUnavailable:
        with self._lock:
            self.unavailable = reason
        return EmbeddingsUnavailable(reason)

    def close(self) -> None:
        self._http.close()


def _normalised(values) -> array:
    vector = array("f", (float(v) for v in values))
    norm = math.sqrt(sum(v * v for v in vector))
    if norm > 0:
        for i in range(len(vector)):
            vector[i] /= norm
    return vector


def cosine(a: array, b: array) -> float:
    """Both normalised: the dot product."""
    if len(a) != len(b):
        return 0.0
    return sum(x * y for x, y in zip(a, b))


def from_blob(blob: bytes) -> array:
    vector = array("f")
    vector.frombytes(blob)
    return vector


def embed_missing(db: "Database", embedder: Embedder, cancel: threading.Event) -> str:
    """Embed every chunk without a vector for ``embedder.model``, a batch per
    transaction. Returns what to report: ``N chunks embedded`` or why not."""
    conn = db.connection()
    done = 0
    while not cancel.is_set():
        rows = conn.execute(
            "SELECT c.id, c.path, c.symbol, c.body FROM chunks c LEFT JOIN vectors v ON v.chunk_id = c.id "
            "AND v.model = ? WHERE v.chunk_id IS NULL LIMIT ?", (embedder.model, BATCH)).fetchall()
        if not rows:
            break
        try:
            vectors = embedder.embed([f"{path} {symbol}\n{body}" for _, path, symbol, body in rows])
        except EmbeddingsUnavailable as exc:
            return f"unavailable: {exc}" if not done else f"{done} chunks embedded, then unavailable: {exc}"
        with db.write() as writing:
            writing.executemany("INSERT OR REPLACE INTO vectors(chunk_id, model, vector) VALUES (?, ?, ?)",
                                [(row[0], embedder.model, vector.tobytes()) for row, vector in zip(rows, vectors)])
        done += len(rows)
    return f"{done} chunks embedded"
