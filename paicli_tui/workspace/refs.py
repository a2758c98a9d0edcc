"""A run's refs, written behind its back.

The run keeps its integration head in memory and names every commit in the
ledger, so no task waits for a ref: the refs are there for the report, the
``branch`` apply and a person looking into the shadow. Updates are queued
and written in order by one short-lived thread, each batch one
``update-ref --stdin`` transaction (a ref moved twice in a batch is one
compare-and-swap from its first old value to its last new one). The thread
lets updates gather for a moment first: tasks finish in bursts (a diamond's
middle settles at once), and on two busy cores every git process started
then slows the merges and checkouts the next tasks wait for. Whoever reads
a ref by name flushes first."""

from __future__ import annotations

import threading

from paicli_tui.workspace.shadow import ShadowRepo


#: How long queued updates gather before they are written (a flush does not wait).
GATHER_S = 0.3


class RefWriter:
    def __init__(self, repo: ShadowRepo, gather_s: float = GATHER_S) -> None:
        self.repo = repo
        self.gather_s = gather_s
        self._pending: list[tuple[str, str, str | None]] = []
        self._writing = False
        self._flushing = 0
        self._error: BaseException | None = None
        self._changed = threading.Condition()

    def write(self, ref: str, new: str, old: str | None = None) -> None:
        """Queue ``ref`` := ``new`` (only if it still holds ``old``, when given)."""
        with self._changed:
            self._pending.append((ref, new, old))
            if self._writing:
                return
            self._writing = True
        threading.Thread(target=self._drain, name="paicli-refs", daemon=True).start()

    def flush(self, raise_error: bool = True) -> None:
        """Until every queued update is written; raises the first that failed."""
        with self._changed:
            self._flushing += 1
            self._changed.notify_all()
            try:
                while self._writing:
                    self._changed.wait()
            finally:
                self._flushing -= 1
            error, self._error = self._error, None
        if error is not None and raise_error:
            raise error

    def _drain(self) -> None:
        while True:
            with self._changed:
                if not self._flushing:
                    self._changed.wait_for(lambda: self._flushing > 0, timeout=self.gather_s)
                batch, self._pending = self._pending, []
                if not batch:
                    self._writing = False
                    self._changed.notify_all()
                    return
            try:
                self.repo.git().run("update-ref", "--stdin", input=_transaction(batch).encode())
            except BaseException as exc:  # noqa: BLE001 — handed to whoever flushes
                with self._changed:
                    self._error = self._error or exc


def _transaction(batch: list[tuple[str, str, str | None]]) -> str:
    moves: dict[str, tuple[str, str | None]] = {}
    for ref, new, old in batch:
        first_old = moves[ref][1] if ref in moves else old
        moves[ref] = (new, first_old)
    return "".join(f"update {ref} {new}{'' if old is None else ' ' + old}\n" for ref, (new, old) in moves.items())
