"""The per-workspace SQLite database that holds memory and the code index.

One file per workspace under the data directory
(``workspaces/<name>-<hash>/knowledge.sqlite3``), never in the workspace:
like kept grants, what the agent remembers must not come from a cloned
repository. The schema has a version (``PRAGMA user_version``) and an
ordered list of migrations; opening a database applies the missing ones in
one transaction, so two processes opening an old file at once migrate it
once. WAL journaling lets a search read while an indexer writes, and every
write is a transaction: a killed process leaves the last committed state.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from paicli_tui.config.paths import data_dir

FILE_NAME = "knowledge.sqlite3"
BUSY_TIMEOUT_MS = 10_000

#: Each migration is a list of statements run in one transaction; the
#: schema version is the number of migrations applied. Never edit one that
#: shipped: add the next.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: memory
    (
        """CREATE TABLE facts (
            id INTEGER PRIMARY KEY,
            text TEXT NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('person', 'agent')),
            agent TEXT NOT NULL DEFAULT '',
            run TEXT NOT NULL DEFAULT '',
            created REAL NOT NULL
        )""",
        "CREATE VIRTUAL TABLE facts_fts USING fts5(text, content='facts', content_rowid='id', "
        "tokenize='porter unicode61')",
        "CREATE TRIGGER facts_ai AFTER INSERT ON facts BEGIN "
        "INSERT INTO facts_fts(rowid, text) VALUES (new.id, new.text); END",
        "CREATE TRIGGER facts_ad AFTER DELETE ON facts BEGIN "
        "INSERT INTO facts_fts(facts_fts, rowid, text) VALUES ('delete', old.id, old.text); END",
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ),
    # 2: the code index and its graph
    (
        """CREATE TABLE files (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            sha256 TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            language TEXT NOT NULL,
            indexed REAL NOT NULL
        )""",
        """CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL,
            symbol TEXT NOT NULL,
            kind TEXT NOT NULL,
            path TEXT NOT NULL,
            body TEXT NOT NULL,
            terms TEXT NOT NULL
        )""",
        "CREATE INDEX chunks_file ON chunks(file_id)",
        "CREATE VIRTUAL TABLE chunk_fts USING fts5(symbol, path, body, terms, content='chunks', "
        "content_rowid='id', tokenize='porter unicode61')",
        "CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN "
        "INSERT INTO chunk_fts(rowid, symbol, path, body, terms) "
        "VALUES (new.id, new.symbol, new.path, new.body, new.terms); END",
        "CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN "
        "INSERT INTO chunk_fts(chunk_fts, rowid, symbol, path, body, terms) "
        "VALUES ('delete', old.id, old.symbol, old.path, old.body, old.terms); END",
        """CREATE TABLE symbols (
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            qualified TEXT NOT NULL,
            kind TEXT NOT NULL,
            start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL
        )""",
        "CREATE INDEX symbols_name ON symbols(name)",
        "CREATE INDEX symbols_qualified ON symbols(qualified)",
        "CREATE INDEX symbols_file ON symbols(file_id)",
        """CREATE TABLE calls (
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            caller TEXT NOT NULL,
            callee TEXT NOT NULL,
            line INTEGER NOT NULL
        )""",
        "CREATE INDEX calls_callee ON calls(callee)",
        "CREATE INDEX calls_file ON calls(file_id, line)",
        """CREATE TABLE imports (
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            target TEXT NOT NULL,
            raw TEXT NOT NULL,
            line INTEGER NOT NULL
        )""",
        "CREATE INDEX imports_target ON imports(target)",
        "CREATE INDEX imports_file ON imports(file_id)",
        """CREATE TABLE refs (
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            line INTEGER NOT NULL,
            count INTEGER NOT NULL
        )""",
        "CREATE INDEX refs_name ON refs(name)",
        "CREATE INDEX refs_file ON refs(file_id)",
        """CREATE TABLE vectors (
            chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
            model TEXT NOT NULL,
            vector BLOB NOT NULL
        )""",
    ),
    # 3: facts agents saved in auto mode wait for the person's yes
    (
        "ALTER TABLE facts ADD COLUMN status TEXT NOT NULL DEFAULT 'kept' CHECK (status IN ('kept', 'pending'))",
        "CREATE INDEX facts_status ON facts(status)",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


class DatabaseError(Exception):
    """The database cannot be used; ``str()`` is one line naming the file."""


def workspace_key(workspace: Path) -> str:
    """``<name>-<hash>``: readable, and unique per resolved workspace path."""
    resolved = str(Path(workspace).resolve())
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(resolved).name or "root")[:40]
    return f"{name}-{hashlib.sha256(resolved.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}"


def database_path(workspace: Path) -> Path:
    return data_dir() / "workspaces" / workspace_key(workspace) / FILE_NAME


class Database:
    """One database file. ``connect()`` gives a connection for the calling
    thread (sqlite3 connections stay on the thread that made them); the
    schema is brought up to date on first use, the file created only then."""

    def __init__(self, path: Path, *, migrations: tuple[tuple[str, ...], ...] = MIGRATIONS) -> None:
        self.path = Path(path)
        self._migrations = migrations
        self._local = threading.local()
        self._migrated = False
        self._lock = threading.Lock()

    @classmethod
    def for_workspace(cls, workspace: Path) -> "Database":
        return cls(database_path(workspace))

    def exists(self) -> bool:
        return self.path.exists()

    def connection(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE … COMMIT, rolled back on
        any exception)."""
        conn = self.connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        """Close this thread's connection (others close with their thread)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def version(self) -> int:
        return int(self.connection().execute("PRAGMA user_version").fetchone()[0])

    def _open(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            os.chmod(self.path.parent, 0o700)
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                   timeout=BUSY_TIMEOUT_MS / 1000)
            os.chmod(self.path, 0o600)
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
        except (OSError, sqlite3.Error) as exc:
            raise DatabaseError(f"cannot open the memory database {self.path}: {exc}") from None
        with self._lock:
            if not self._migrated:
                self._migrate(conn)
                self._migrated = True
        return conn

    def _migrate(self, conn: sqlite3.Connection) -> None:
        try:
            conn.execute("BEGIN IMMEDIATE")
            current = int(conn.execute("PRAGMA user_version").fetchone()[0])
            known = len(self._migrations)
            if current > known:
                conn.execute("ROLLBACK")
                raise DatabaseError(f"{self.path} was written by a newer paicli (schema {current}; this one knows "
                                    f"up to {known}); upgrade paicli or move the file away")
            for statements in self._migrations[current:]:
                for statement in statements:
                    conn.execute(statement)
            if current < known:
                conn.execute(f"PRAGMA user_version = {known}")
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise DatabaseError(f"cannot prepare the memory database {self.path}: {exc}") from None
