"""Ranked code search over the index: BM25 over symbol, path, body and the
split identifiers (FTS5), a bonus when a query word names the chunk's
symbol, and — when chunks have embeddings — cosine similarity blended into
the score of the best lexical candidates."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from paicli_tui.knowledge.codeindex.embeddings import EmbeddingsUnavailable, cosine, from_blob
from paicli_tui.knowledge.memory.database import Database
from paicli_tui.knowledge.memory.text_query import CODE_NOISE, fts_or_query, query_terms, split_identifier

#: BM25 column weights: symbol, path, body, identifier parts.
WEIGHTS = (8.0, 3.0, 1.0, 1.5)
#: Lexical candidates ranked further (symbol bonus, embeddings).
CANDIDATES = 100
#: At most this many hits from one file, so one big file cannot fill the page.
PER_FILE = 3
#: Relative bonuses: a query word that is the chunk's symbol, a part of
#: its symbol, or a part of its file's name ("easing" → _easing.py).
SYMBOL_BONUS = 0.35
SYMBOL_PART_BONUS = 0.15
FILE_NAME_BONUS = 0.25
#: Each further matching chunk of the same file adds this share of the
#: file's best score, up to FILE_EVIDENCE_CAP: a file about the question
#: beats one stray mention.
FILE_EVIDENCE = 0.05
FILE_EVIDENCE_CAP = 0.25
SEMANTIC_SHARE = 0.4


@dataclass(frozen=True)
class CodeHit:
    path: str
    start_line: int
    end_line: int
    symbol: str
    kind: str
    score: float
    body: str
    stale: bool = False
    """The file changed since it was indexed."""

    def location(self) -> str:
        lines = f"{self.start_line}" if self.start_line == self.end_line else f"{self.start_line}-{self.end_line}"
        return f"{self.path}:{lines}"


def index_is_empty(db: Database) -> bool:
    if not db.exists():
        return True
    return db.connection().execute("SELECT 1 FROM files LIMIT 1").fetchone() is None


def search_code(db: Database, query: str, *, limit: int = 8, path: str = "", embedder=None,
                workspace: Path | None = None) -> list[CodeHit]:
    terms = query_terms(query, noise=CODE_NOISE) or query_terms(query, keep_stop_words=True)
    if not terms or index_is_empty(db):
        return []
    # Rank inside FTS5 first and fetch the chunks of the best candidates
    # only: joining before the LIMIT reads every matching chunk's row.
    where = "chunk_fts MATCH ?"
    params: list = [fts_or_query(terms)]
    prefix = path.strip().strip("/")
    if prefix and prefix != ".":
        where += " AND (chunk_fts.path = ? OR substr(chunk_fts.path, 1, ?) = ?)"
        params += [prefix, len(prefix) + 1, prefix + "/"]
    weights = ", ".join(str(w) for w in WEIGHTS)
    sql = ("SELECT c.id, c.path, c.start_line, c.end_line, c.symbol, c.kind, c.body, best.rank FROM "
           f"(SELECT rowid, bm25(chunk_fts, {weights}) AS rank FROM chunk_fts WHERE {where} "
           "ORDER BY rank LIMIT ?) AS best JOIN chunks c ON c.id = best.rowid")
    params.append(CANDIDATES)
    rows = db.connection().execute(sql, params).fetchall()
    if not rows:
        return []
    wanted = set(terms)
    scored = []
    for chunk_id, hit_path, start, end, symbol, kind, body, rank in rows:
        score = -rank * (1 + _name_bonus(symbol, hit_path, wanted))
        scored.append([score, chunk_id, hit_path, start, end, symbol, kind, body])
    _file_evidence(scored)
    if embedder is not None:
        _blend(db, embedder, query, scored)
    scored.sort(key=lambda row: (-row[0], row[2], row[3]))
    hits: list[CodeHit] = []
    per_file: dict[str, int] = {}
    for score, _, hit_path, start, end, symbol, kind, body in scored:
        if per_file.get(hit_path, 0) >= PER_FILE:
            continue
        per_file[hit_path] = per_file.get(hit_path, 0) + 1
        hits.append(CodeHit(hit_path, start, end, symbol, kind, round(score, 3), body))
        if len(hits) == limit:
            break
    return _mark_stale(db, hits, workspace) if workspace is not None else hits


def _name_bonus(symbol: str, path: str, wanted: set[str]) -> float:
    bonus = 0.0
    last = symbol.rsplit(".", 1)[-1]
    if last and (last.lower() in wanted or last.lower().replace("_", "") in wanted):
        bonus += SYMBOL_BONUS
    elif last and any(_related(part, term) for part in _parts(last) for term in wanted):
        bonus += SYMBOL_PART_BONUS
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if any(_related(part, term) for part in _parts(stem) for term in wanted):
        bonus += FILE_NAME_BONUS
    return bonus


def _parts(name: str) -> list[str]:
    return [p for p in split_identifier(name.replace("_", " ").replace("-", " ")) if len(p) > 2] if name else []


def _related(word: str, term: str) -> bool:
    """The same word, or sharing its first five letters (validators,
    validation) — a stand-in for the stemmer the index applies in C."""
    return word == term or (len(word) >= 5 and len(term) >= 5 and word[:5] == term[:5])


def _file_evidence(scored: list[list]) -> None:
    by_file: dict[str, list[list]] = {}
    for row in scored:
        by_file.setdefault(row[2], []).append(row)
    for rows in by_file.values():
        if len(rows) < 2:
            continue
        best = max(row[0] for row in rows)
        extra = best * min(FILE_EVIDENCE * (len(rows) - 1), FILE_EVIDENCE_CAP)
        for row in rows:
            row[0] += extra


def _blend(db: Database, embedder, query: str, scored: list[list]) -> None:
    """Re-score the lexical candidates: a share of BM25 (scaled to the best
    candidate) and a share of cosine similarity to the query."""
    ids = [row[1] for row in scored]
    marks = ",".join("?" * len(ids))
    vectors = {chunk_id: from_blob(blob) for chunk_id, blob in db.connection().execute(
        f"SELECT chunk_id, vector FROM vectors WHERE model = ? AND chunk_id IN ({marks})", [embedder.model, *ids])}
    if not vectors:
        return
    try:
        query_vector = embedder.embed([query])[0]
    except EmbeddingsUnavailable:
        return
    best = max(row[0] for row in scored) or 1.0
    for row in scored:
        vector = vectors.get(row[1])
        similarity = cosine(query_vector, vector) if vector is not None else 0.0
        row[0] = (1 - SEMANTIC_SHARE) * row[0] / best + SEMANTIC_SHARE * max(similarity, 0.0)


def _mark_stale(db: Database, hits: list[CodeHit], workspace: Path) -> list[CodeHit]:
    paths = sorted({hit.path for hit in hits})
    marks = ",".join("?" * len(paths))
    recorded = dict(db.connection().execute(f"SELECT path, mtime_ns FROM files WHERE path IN ({marks})", paths))
    stale = set()
    for hit_path in paths:
        try:
            if os.stat(workspace / hit_path, follow_symlinks=False).st_mtime_ns != recorded.get(hit_path):
                stale.add(hit_path)
        except OSError:
            stale.add(hit_path)
    return [CodeHit(**{**hit.__dict__, "stale": hit.path in stale}) for hit in hits]
