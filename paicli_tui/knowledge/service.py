"""Memory and the code index of one workspace, as a session shares them
with every agent of every mode (P-9.4): the ReAct agent, /plan tasks and
team workers use the same facts and the same index through the same tools;
planners and reviewers, which have no tools, get neither.

Facts the person saves are kept at once. Facts agents save wait in the
current run's ``RunFacts`` and are kept when the run ends, unless it was
cancelled. Everything observable is an event on the session's bus.
"""

from __future__ import annotations

import sqlite3
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from paicli_tui.events import (
    EventBus,
    IndexBuilt,
    IndexProgress,
    MemoryDeleted,
    MemoryDiscarded,
    MemoryRecalled,
    MemoryHeld, MemorySaved,
)
from paicli_tui.knowledge.memory.database import Database, DatabaseError
from paicli_tui.knowledge.memory.facts import Fact, MemoryStore
from paicli_tui.knowledge.memory.recall import with_memory
from paicli_tui.knowledge.memory.run_facts import PendingFact, RunFacts
from paicli_tui.policy.redaction import redact_secret_shapes

if TYPE_CHECKING:
    from paicli_tui.knowledge.codeindex.graph import SymbolGraph
    from paicli_tui.knowledge.codeindex.indexer import IndexReport
    from paicli_tui.knowledge.codeindex.search import CodeHit
    from paicli_tui.config.settings import Settings
    from paicli_tui.policy.redaction import Redactor


class Knowledge:
    def __init__(self, workspace: Path, *, settings: "Settings | None" = None, bus: EventBus | None = None,
                 redactor: "Redactor | None" = None, db: Database | None = None, recall_limit: int = 3) -> None:
        self.workspace = Path(workspace).resolve()
        self.db = db or Database.for_workspace(self.workspace)
        self.memory = MemoryStore(self.db)
        self.bus = bus
        self.redactor = redactor
        self.recall_limit = recall_limit
        self._settings = settings
        self._embedder = None
        self._embedder_made = False
        self._run: RunFacts | None = None
        self._index_lock = threading.Lock()
        self._index_jobs: ThreadPoolExecutor | None = None
        self._index_cancel: threading.Event | None = None

    # -- memory ------------------------------------------------------------------

    def save_by_person(self, text: str) -> Fact:
        """``/save FACT``: kept at once. FactError for an empty or long fact."""
        fact = self.memory.add(self._clean(text), "person")
        self._publish(MemorySaved("session", fact.id, fact.text, "person", ""))
        return fact

    def keep_fact(self, fact_id: int) -> Fact | None:
        """The person's yes to a pending fact (``/memory`` k)."""
        fact = self.memory.keep(fact_id)
        if fact is not None:
            self._publish(MemorySaved("session", fact.id, fact.text, fact.source, fact.run))
        return fact

    def delete_fact(self, fact_id: int) -> bool:
        deleted = self.memory.delete(fact_id)
        if deleted:
            self._publish(MemoryDeleted("session", fact_id))
        return deleted

    def begin_run(self, run: str) -> None:
        self._run = RunFacts(run)

    def save_by_agent(self, text: str, agent: str) -> PendingFact:
        """``save_memory``: held until the run ends (FactError when refused)."""
        run = self._run
        if run is None:  # an agent outside any run (tests, tools driven by hand)
            run = self._run = RunFacts("")
        return run.save(self._clean(text), agent)

    def end_run(self, *, cancelled: bool, reason: str = "the run was cancelled", hold: bool = False) -> list[Fact]:
        """Keep what agents saved in the run (one transaction), or drop it
        all when the run was cancelled. ``hold`` (auto mode, where no one
        said yes to each fact) stores them as pending for the person to keep
        or drop. Returns the facts stored."""
        run, self._run = self._run, None
        if run is None:
            return []
        pending = run.take()
        if not pending:
            return []
        if cancelled:
            self._publish(MemoryDiscarded("session", len(pending), reason))
            return []
        try:
            kept = self.memory.add_many([(fact.text, "agent", fact.agent, run.run) for fact in pending],
                                        "pending" if hold else "kept")
        except (DatabaseError, sqlite3.Error, OSError) as exc:
            # A broken memory must not cost the run its recorded outcome.
            self._publish(MemoryDiscarded("session", len(pending), f"the memory database is unusable: {exc}"))
            return []
        for fact in kept:
            if hold:
                self._publish(MemoryHeld(fact.agent, fact.id, fact.text, fact.run))
            else:
                self._publish(MemorySaved(fact.agent, fact.id, fact.text, "agent", fact.run))
        return kept

    def search_memory(self, query: str, limit: int = 5) -> tuple[list[PendingFact], list[Fact]]:
        """This run's held facts and the kept ones that match ``query``."""
        pending = self._run.search(query, limit) if self._run is not None else []
        return pending, self.memory.search(query, limit)

    def recall(self, message: str, query: str, agent: str) -> str:
        """``message`` with the few facts most relevant to ``query`` put in
        front (the agent's first user message of its turn or task)."""
        if self.recall_limit <= 0:
            return message
        try:
            facts = self.memory.search(query, self.recall_limit)
        except (DatabaseError, sqlite3.Error):  # a broken database must not stop the agent from working
            return message
        if facts:
            self._publish(MemoryRecalled(agent, tuple(str(fact.id) for fact in facts)))
        return with_memory(message, facts)

    def _clean(self, text: str) -> str:
        """Secrets never reach the database: known values and secret shapes
        are replaced before a fact is held or kept."""
        if self.redactor is not None:
            text = self.redactor.text(str(text))
        cleaned, _ = redact_secret_shapes(str(text))
        return cleaned

    # -- the code index --------------------------------------------------------------

    @property
    def embedder(self):
        if not self._embedder_made:
            self._embedder_made = True
            if self._settings is not None:
                from paicli_tui.knowledge.codeindex.embeddings import Embedder

                self._embedder = Embedder.from_settings(self._settings)
        return self._embedder

    def build_index(self, cancel: threading.Event | None = None, *, progress=None,
                    on_wait: Callable[[], None] | None = None) -> "IndexReport":
        """Build or refresh the index; one build at a time per session, and
        per workspace across processes (``on_wait`` is told when another
        process holds it). ``progress`` (optional) gets each IndexProgressReport too."""
        from paicli_tui.knowledge.codeindex.indexer import Indexer, IndexProgressReport

        def report(step: IndexProgressReport) -> None:
            self._publish(IndexProgress("indexer", step.done, step.total, step.path))
            if progress is not None:
                progress(step)

        if not self._index_lock.acquire(blocking=False):
            from paicli_tui.knowledge.codeindex.indexer import IndexBuildError

            raise IndexBuildError("the index is already being built")
        try:
            from paicli_tui.knowledge.index_lock import index_lock

            with index_lock(self.db.path, cancel, on_wait):
                built = Indexer(self.db, self.workspace, embedder=self.embedder).build(cancel, report)
        finally:
            self._index_lock.release()
        self._publish(IndexBuilt("indexer", built.files, built.added, built.changed, built.unchanged, built.removed,
                                 built.skipped, built.chunks, round(built.duration_s, 3), built.complete,
                                 built.embeddings))
        return built

    def start_index(self, cancel: threading.Event) -> "Future[IndexReport]":
        """Build on this knowledge's own thread (the app's /index): the
        build publishes its progress and its end on the bus."""
        from paicli_tui.knowledge.codeindex.indexer import IndexBuildError

        if self._index_lock.locked():
            raise IndexBuildError("the index is already being built")
        if self._index_jobs is None:
            self._index_jobs = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paicli-index")
        self._index_cancel = cancel
        return self._index_jobs.submit(self.build_index, cancel)

    def search_code(self, query: str, *, limit: int = 8, path: str = "") -> "list[CodeHit]":
        from paicli_tui.knowledge.codeindex.search import search_code

        return search_code(self.db, query, limit=limit, path=path, embedder=self._query_embedder(),
                           workspace=self.workspace)

    def graph(self, symbol: str) -> "SymbolGraph":
        from paicli_tui.knowledge.codeindex.graph import symbol_graph

        return symbol_graph(self.db, symbol)

    def index_files(self) -> int:
        if not self.db.exists():
            return 0
        return int(self.db.connection().execute("SELECT count(*) FROM files").fetchone()[0])

    def _query_embedder(self):
        """Queries are embedded only when the index holds vectors."""
        embedder = self.embedder
        if embedder is None or embedder.unavailable:
            return None
        row = self.db.connection().execute("SELECT 1 FROM vectors WHERE model = ? LIMIT 1", (embedder.model,)).fetchone()
        return embedder if row else None

    # -- plumbing ---------------------------------------------------------------------

    def close(self) -> None:
        if self._index_cancel is not None:
            self._index_cancel.set()  # a build stops at its next file; its batches so far stay
        if self._index_jobs is not None:
            self._index_jobs.shutdown(wait=False, cancel_futures=True)
        if self._embedder is not None:
            self._embedder.close()
        self.db.close()

    def _publish(self, event) -> None:
        if self.bus is not None:
            self.bus.publish(event)
