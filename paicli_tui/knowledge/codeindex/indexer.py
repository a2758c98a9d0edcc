"""Building and refreshing the code index of a workspace.

Files come from ``rg --files`` (the walk grep_code uses: .gitignore
respected, .git, virtualenvs and node_modules left out, symlinks never
followed). A file whose size and modification time match the index is not
read again; one that changed is hashed, and only a new hash is parsed. Work
is written in batches, each one transaction holding whole files, so an
indexer killed at any moment leaves an index that is complete for every file
it holds, and the next run picks up where it stopped. Files gone from the
workspace leave the index at the end of a run that was not cancelled.
Memory stays bounded: one file is held at a time, plus one batch of rows.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from paicli_tui.knowledge.codeindex.chunks import Chunk, chunk_code, chunk_markdown, chunk_text
from paicli_tui.knowledge.codeindex.languages import language_of, spec_for
from paicli_tui.knowledge.codeindex.parse import ParsedFile, parse_source
from paicli_tui.knowledge.memory.database import Database
from paicli_tui.tools.base import ToolStopped

#: Larger files are left out (generated code, data, bundles).
MAX_FILE_BYTES = 1_000_000
BATCH_FILES = 100
BATCH_SECONDS = 1.0
#: Progress is reported at most this often (it travels as events).
PROGRESS_SECONDS = 0.25

Progress = Callable[["IndexProgressReport"], None]


class IndexBuildError(Exception):
    """The index cannot be built; ``str()`` is one line."""


@dataclass(frozen=True)
class IndexProgressReport:
    done: int
    total: int
    path: str


@dataclass
class IndexReport:
    files: int = 0
    """Files the walk listed."""
    added: int = 0
    changed: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: int = 0
    """Too large, binary or unreadable."""
    chunks: int = 0
    """Chunks written by this run."""
    symbols: int = 0
    duration_s: float = 0.0
    complete: bool = True
    """False when cancelled: what was written stays, removals wait."""
    embeddings: str = "off"
    """off | unavailable: <why> | N chunks embedded"""
    parsed_paths: list[str] = field(default_factory=list)
    removed_paths: list[str] = field(default_factory=list)

    def line(self) -> str:
        head = "index updated" if self.complete else "index stopped early (what it holds stays usable)"
        parts = [f"{self.files} files", f"{self.added} new", f"{self.changed} changed", f"{self.removed} removed"]
        if self.skipped:
            parts.append(f"{self.skipped} skipped")
        rate = f", {self.files / self.duration_s:.0f} files/s" if self.duration_s > 0 and self.files else ""
        extra = f"; embeddings: {self.embeddings}" if self.embeddings != "off" else ""
        return f"{head}: {', '.join(parts)} — {self.chunks} chunks written in {self.duration_s:.1f} s{rate}{extra}"


@dataclass
class _Pending:
    path: str
    file_id: int | None
    sha: str
    size: int
    mtime_ns: int
    language: str
    chunks: list[Chunk]
    parsed: ParsedFile


class Indexer:
    def __init__(self, db: Database, workspace: Path, *, list_files: Callable[[threading.Event], list[str]] | None = None,
                 embedder=None) -> None:
        self.db = db
        self.workspace = Path(workspace).resolve()
        self._list_files = list_files or self._rg_files
        self.embedder = embedder

    def build(self, cancel: threading.Event | None = None, progress: Progress | None = None) -> IndexReport:
        cancel = cancel or threading.Event()
        started = time.monotonic()
        report = IndexReport()
        try:
            paths = self._list_files(cancel)
        except ToolStopped:
            report.complete = False
            return report
        report.files = len(paths)
        known = {row[0]: row[1:] for row in self.db.connection().execute(
            "SELECT path, id, sha256, size, mtime_ns FROM files")}
        self._set_meta("index_started", f"{time.time():.3f}")
        batch: list[_Pending] = []
        touched: list[tuple[int, int, int]] = []
        last_flush = last_progress = time.monotonic()
        for done, path in enumerate(paths, start=1):
            if cancel.is_set():
                report.complete = False
                break
            self._visit(path, known.get(path), report, batch, touched)
            now = time.monotonic()
            if len(batch) >= BATCH_FILES or (batch or touched) and now - last_flush >= BATCH_SECONDS:
                self._flush(batch, touched, report)
                last_flush = now
            if progress is not None and (now - last_progress >= PROGRESS_SECONDS or done == len(paths)):
                progress(IndexProgressReport(done, len(paths), path))
                last_progress = now
        self._flush(batch, touched, report)
        if report.complete:
            listed = set(paths)
            gone = [(path, row[0]) for path, row in known.items() if path not in listed]
            self._remove(gone, report)
            self._set_meta("index_finished", f"{time.time():.3f}")
        if self.embedder is not None and report.complete:
            report.embeddings = self._embed(cancel)
        report.duration_s = time.monotonic() - started
        return report

    # -- one file --------------------------------------------------------------

    def _visit(self, path: str, known, report: IndexReport, batch: list[_Pending], touched: list) -> None:
        try:
            info = os.stat(self.workspace / path, follow_symlinks=False)
        except OSError:
            report.skipped += 1
            return
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
            report.skipped += 1
            return
        if known is not None and known[2] == info.st_size and known[3] == info.st_mtime_ns:
            report.unchanged += 1
            return
        data = self._read(path)
        if data is None or b"\0" in data[:8192]:
            report.skipped += 1
            return
        sha = hashlib.sha256(data).hexdigest()
        if known is not None and known[1] == sha:
            touched.append((info.st_size, info.st_mtime_ns, known[0]))
            report.unchanged += 1
            return
        language = language_of(path)
        text = data.decode("utf-8", errors="replace")
        lines = text.splitlines()
        parsed = ParsedFile()
        if spec_for(language) is not None:
            parsed = parse_source(path, language, data)
            chunks = chunk_code(lines, parsed.definitions)
        elif language == "markdown":
            chunks = chunk_markdown(lines)
        else:
            chunks = chunk_text(lines)
        batch.append(_Pending(path, known[0] if known else None, sha, info.st_size, info.st_mtime_ns, language,
                              chunks, parsed))
        if known is None:
            report.added += 1
        else:
            report.changed += 1
        report.parsed_paths.append(path)

    def _read(self, path: str) -> bytes | None:
        from paicli_tui.tools.base import ToolError
        from paicli_tui.tools.safe_fs import open_file

        try:
            with open_file(self.workspace, path, path) as handle:
                return handle.read(MAX_FILE_BYTES + 1)[:MAX_FILE_BYTES]
        except (OSError, ToolError):
            return None

    # -- writing ------------------------------------------------------------------

    def _flush(self, batch: list[_Pending], touched: list, report: IndexReport) -> None:
        if not batch and not touched:
            return
        now = time.time()
        with self.db.write() as conn:
            conn.executemany("UPDATE files SET size = ?, mtime_ns = ? WHERE id = ?", touched)
            for item in batch:
                if item.file_id is not None:
                    _delete_rows(conn, [item.file_id])
                    conn.execute("UPDATE files SET sha256 = ?, size = ?, mtime_ns = ?, language = ?, indexed = ? "
                                 "WHERE id = ?", (item.sha, item.size, item.mtime_ns, item.language, now, item.file_id))
                    file_id = item.file_id
                else:
                    file_id = conn.execute(
                        "INSERT INTO files(path, sha256, size, mtime_ns, language, indexed) VALUES (?, ?, ?, ?, ?, ?)",
                        (item.path, item.sha, item.size, item.mtime_ns, item.language, now)).lastrowid
                _insert_rows(conn, file_id, item)
                report.chunks += len(item.chunks)
                report.symbols += len(item.parsed.definitions)
        batch.clear()
        touched.clear()

    def _remove(self, gone: list[tuple[str, int]], report: IndexReport) -> None:
        if not gone:
            return
        with self.db.write() as conn:
            ids = [file_id for _, file_id in gone]
            _delete_rows(conn, ids)
            conn.executemany("DELETE FROM files WHERE id = ?", [(i,) for i in ids])
        report.removed = len(gone)
        report.removed_paths = sorted(path for path, _ in gone)

    def _set_meta(self, key: str, value: str) -> None:
        with self.db.write() as conn:
            conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                         (key, value))

    def _embed(self, cancel: threading.Event) -> str:
        from paicli_tui.knowledge.codeindex.embeddings import embed_missing

        return embed_missing(self.db, self.embedder, cancel)

    # -- listing ------------------------------------------------------------------------

    def _rg_files(self, cancel: threading.Event) -> list[str]:
        from paicli_tui.policy.approval import DenyApprover
        from paicli_tui.tools.base import ToolContext, ToolError
        from paicli_tui.tools.trusted_urls import TrustedUrls
        from paicli_tui.tools.walk import workspace_files

        ctx = ToolContext("indexer", cancel, TrustedUrls(), DenyApprover())
        try:
            return workspace_files(self.workspace, self.workspace, ctx, "index").files
        except ToolStopped:
            raise
        except ToolError as exc:
            raise IndexBuildError(str(exc)) from None


def _delete_rows(conn, file_ids: list[int]) -> None:
    rows = [(i,) for i in file_ids]
    conn.executemany("DELETE FROM vectors WHERE chunk_id IN (SELECT id FROM chunks WHERE file_id = ?)", rows)
    for table in ("chunks", "symbols", "calls", "imports", "refs"):
        conn.executemany(f"DELETE FROM {table} WHERE file_id = ?", rows)


def _insert_rows(conn, file_id: int, item: _Pending) -> None:
    conn.executemany(
        "INSERT INTO chunks(file_id, start_line, end_line, symbol, kind, path, body, terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(file_id, c.start_line, c.end_line, c.symbol, c.kind, item.path, c.body, c.terms) for c in item.chunks])
    parsed = item.parsed
    conn.executemany(
        "INSERT INTO symbols(file_id, name, qualified, kind, start_line, end_line) VALUES (?, ?, ?, ?, ?, ?)",
        [(file_id, d.name, d.qualified, d.kind, d.start_line, d.end_line) for d in parsed.definitions])
    conn.executemany("INSERT INTO calls(file_id, caller, callee, line) VALUES (?, ?, ?, ?)",
                     [(file_id, c.caller, c.callee, c.line) for c in parsed.calls])
    conn.executemany("INSERT INTO imports(file_id, target, raw, line) VALUES (?, ?, ?, ?)",
                     [(file_id, target, i.raw, i.line) for i in parsed.imports for target in i.targets])
    conn.executemany("INSERT INTO refs(file_id, name, line, count) VALUES (?, ?, ?, ?)",
                     [(file_id, name, line, count) for name, (line, count) in parsed.refs.items()])
