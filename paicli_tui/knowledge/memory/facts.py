"""Facts: short statements about the project that outlive a session.

A fact records who stated it: the person (``/save``, ``paicli memory add``)
or an agent, with the run it was saved in. A fact an agent saved in auto
mode is ``pending`` until the person keeps it (``/memory``, ``paicli memory
keep``): only kept facts are searched, recalled or listed as memory. Search ranks by BM25 over the
fact text (FTS5, Porter-stemmed), so "how are the tests run" finds
"run the tests with make check".
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from paicli_tui.knowledge.memory.database import Database
from paicli_tui.knowledge.memory.text_query import fts_prefix_query, like_pattern, query_terms

Source = Literal["person", "agent"]
Status = Literal["kept", "pending"]
_COLUMNS = "id, text, source, agent, run, created, status"
#: A fact is a sentence or two, not a document.
MAX_FACT_CHARS = 1000


class FactError(ValueError):
    """A fact that cannot be saved; ``str()`` says why in one line."""


@dataclass(frozen=True)
class Fact:
    id: int
    text: str
    source: Source
    agent: str = ""
    run: str = ""
    created: float = 0.0
    status: Status = "kept"

    def provenance(self) -> str:
        """``you`` or ``worker-1 in run 20250101-120000-ab12cd/3``."""
        if self.source == "person":
            return "you"
        return f"{self.agent} in run {self.run}" if self.run else self.agent


def checked_text(text: str) -> str:
    """The fact as stored: one line, trimmed; FactError when empty or long."""
    cleaned = " ".join(str(text).split())
    if not cleaned:
        raise FactError("a fact needs some text")
    if len(cleaned) > MAX_FACT_CHARS:
        raise FactError(f"a fact is at most {MAX_FACT_CHARS} characters (this one has {len(cleaned)}); shorten it")
    return cleaned


class MemoryStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def add(self, text: str, source: Source, *, agent: str = "", run: str = "") -> Fact:
        return self.add_many([(text, source, agent, run)])[0]

    def add_many(self, items: list[tuple[str, Source, str, str]], status: Status = "kept") -> list[Fact]:
        """Save several facts in one transaction: all or none."""
        checked = [(checked_text(text), source, agent, run) for text, source, agent, run in items]
        now = time.time()
        saved = []
        with self.db.write() as conn:
            for text, source, agent, run in checked:
                cursor = conn.execute(
                    "INSERT INTO facts(text, source, agent, run, created, status) VALUES (?, ?, ?, ?, ?, ?)",
                    (text, source, agent, run, now, status))
                saved.append(Fact(int(cursor.lastrowid), text, source, agent, run, now, status))
        return saved

    def get(self, fact_id: int) -> Fact | None:
        row = self.db.connection().execute(f"SELECT {_COLUMNS} FROM facts WHERE id = ?", (fact_id,)).fetchone()
        return Fact(*row) if row else None

    def keep(self, fact_id: int) -> Fact | None:
        """The person's yes to a pending fact; None when there is no such
        pending fact."""
        with self.db.write() as conn:
            if conn.execute("UPDATE facts SET status = 'kept' WHERE id = ? AND status = 'pending'",
                            (fact_id,)).rowcount == 0:
                return None
        return self.get(fact_id)

    def pending(self, limit: int = 200) -> list[Fact]:
        """Facts waiting for the person's yes, oldest first."""
        if not self.db.exists():
            return []
        rows = self.db.connection().execute(
            f"SELECT {_COLUMNS} FROM facts WHERE status = 'pending' ORDER BY id LIMIT ?", (limit,)).fetchall()
        return [Fact(*row) for row in rows]

    def delete(self, fact_id: int) -> bool:
        with self.db.write() as conn:
            return conn.execute("DELETE FROM facts WHERE id = ?", (fact_id,)).rowcount > 0

    def count(self) -> int:
        if not self.db.exists():
            return 0
        return int(self.db.connection().execute("SELECT count(*) FROM facts WHERE status = 'kept'").fetchone()[0])

    def recent(self, limit: int = 200) -> list[Fact]:
        """Kept facts, newest first."""
        if not self.db.exists():
            return []
        rows = self.db.connection().execute(
            f"SELECT {_COLUMNS} FROM facts WHERE status = 'kept' ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [Fact(*row) for row in rows]

    def search(self, query: str, limit: int = 5) -> list[Fact]:
        """Facts with a word that starts with a word of ``query`` ("curr"
        finds "currency", and so does "c": a search box searches as it is
        typed), best BM25 first; when the stemmed index finds
        none, facts containing every term as plain text ("runn" finds
        "running", which the index stores as "run"), newest first. Stop
        words alone match nothing: "what is it" is not a question about
        anything."""
        terms = query_terms(query, keep_letters=True)  # as typed: "c" is the start of "current"
        if not terms or not self.db.exists():
            return []
        connection = self.db.connection()
        rows = connection.execute(
            f"SELECT {', '.join('f.' + c for c in _COLUMNS.split(', '))} FROM facts_fts "
            "JOIN facts f ON f.id = facts_fts.rowid WHERE facts_fts MATCH ? AND f.status = 'kept' "
            "ORDER BY bm25(facts_fts), f.id DESC LIMIT ?", (fts_prefix_query(terms), limit)).fetchall()
        if not rows:
            where = " AND ".join("lower(text) LIKE ? ESCAPE '\\'" for _ in terms)
            rows = connection.execute(
                f"SELECT {_COLUMNS} FROM facts WHERE status = 'kept' AND {where} ORDER BY id DESC LIMIT ?",
                (*map(like_pattern, terms), limit)).fetchall()
        return [Fact(*row) for row in rows]
