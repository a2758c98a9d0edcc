"""One /plan or /team run's isolation: the start snapshot, the integration
ref, a task tree per attempt and the merges back, in the order the
scheduler settles tasks.

A task's base is the integration head when its attempt starts. Its
dependencies are merged before it may start, so that head holds the start
state plus all of them (and perhaps finished siblings' merged work, never
half-done work). Every later integration head descends from the base, so
git finds it as the merge base by itself."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from paicli_tui.events import (
    ConflictDecided, EventBus, IsolationSwept, MergeConflict, TaskBase, TaskCommitted, TaskMerged, WorkspaceSnapshot,
)
from paicli_tui.workspace.diffs import DIFF_LIMIT, FileChange, diff_text, numstat
from paicli_tui.workspace.git import GitError, require_version
from paicli_tui.workspace.journal import WriteJournal
from paicli_tui.workspace.merge import MergeOutcome, merge, resolve
from paicli_tui.workspace.refs import RefWriter
from paicli_tui.workspace.shadow import ShadowRepo
from paicli_tui.workspace.snapshot import snapshot_with_tree
from paicli_tui.workspace.trees import TaskTrees, sweep, sweep_pool


@dataclass(frozen=True)
class Attempt:
    """One attempt of a task in its tree, from ``base``."""

    task_id: str
    number: int
    base: str
    path: Path
    slot: str
    #: The tree of ``base``: an attempt whose files still match it changed nothing.
    base_tree: str = ""
    #: What the attempt's tools wrote in its tree (None: commit walks the whole tree).
    journal: WriteJournal | None = field(default=None, compare=False)


@dataclass(frozen=True)
class MergeResult:
    """``merged`` (``merge`` is the new integration head), ``empty`` (the
    attempt changed nothing; nothing merged) or ``conflict``."""

    status: str
    into: str
    result: str
    merge: str = ""
    outcome: MergeOutcome | None = None


class _Receipt(threading.Thread):
    """A thread whose failure is raised to whoever waits for it."""

    error: BaseException | None = None

    def run(self) -> None:
        try:
            super().run()
        except BaseException as exc:  # noqa: BLE001 — handed to the waiter
            self.error = exc

    def wait(self, raise_error: bool = True) -> None:
        self.join()
        if self.error is not None and raise_error:
            raise self.error


class IsolatedRun:
    def __init__(self, repo: ShadowRepo, run_id: str, start: str, trees: TaskTrees,
                 bus: EventBus | None = None, swept: int = 0, start_tree: str = "") -> None:
        self.repo = repo
        self.run_id = run_id
        self.start = start
        self.trees = trees
        self.bus = bus
        #: How many dead runs' task-tree sets were removed when this one began.
        self.swept = swept
        self.integration_ref = f"refs/paicli/{run_id}/integration"
        self._attempts: dict[str, int] = {}
        #: (task id, merge commit) in the order they reached the integration ref.
        self.merges: list[tuple[str, str]] = []
        self._merge_lock = threading.Lock()
        self._count_lock = threading.Lock()
        #: The integration head and its tree, kept here (only this run moves
        #: the ref) so an attempt or a merge needs no git call to read them.
        self._head = (start, start_tree)
        #: Each committed attempt's tree, so a merge into its own base needs no merge at all.
        self._trees: dict[str, str] = {}
        self._receipts: dict[tuple[str, int], _Receipt] = {}
        #: Every ref of the run is written off the tasks' path (``flush_refs`` before reading one).
        self.refs = RefWriter(repo)

    @classmethod
    def begin_run(cls, workspace: Path, run_id: str, root: Path, *, bus: EventBus | None = None,
                  trees: TaskTrees | None = None, warm: list[str] | None = None) -> "IsolatedRun":
        """Snapshot ``workspace`` into the shadow repository in ``root`` and
        start the run's refs. ``trees`` (leased from the workspace's warm
        pool, perhaps readied while the run was planned) default to a new
        lease of the pool; ``warm`` names slots whose trees are readied at the start state in
        the background now. Raises IsolationUnavailable without a usable git."""
        require_version()
        repo = trees.repo if trees is not None else ShadowRepo.open(workspace, root)
        removed = sweep(repo, root / "trees") + sweep_pool(repo, root / "pool")
        if removed and bus is not None:
            bus.publish(IsolationSwept("isolation", len(removed)))
        start, start_tree = snapshot_with_tree(repo, message=f"paicli {run_id}: start state")
        run = cls(repo, run_id, start, trees or TaskTrees(repo, root / "pool"), bus, len(removed), start_tree)
        run.refs.write(f"refs/paicli/{run_id}/start", start)
        run.refs.write(run.integration_ref, start)
        if warm:
            run.trees.warm(warm, start)
        run._publish(WorkspaceSnapshot("isolation", run_id, start, repo.person_head() or "", repo.kind))
        return run

    @classmethod
    def resume_run(cls, workspace: Path, run_id: str, root: Path, *, start: str, head: str,
                   merges: list[tuple[str, str]], attempts: Mapping[str, int], bus: EventBus | None = None,
                   ) -> "IsolatedRun":
        """Go on with an interrupted run: its start state and the merges of
        the work it keeps (``head``; work merged after it is thrown away).
        ``attempts`` are the attempts each task used before, so the next one
        gets the next number. Raises IsolationUnavailable without a usable
        git, GitError when the shadow no longer holds the run's commits."""
        require_version()
        repo = ShadowRepo.open(workspace, root)
        removed = sweep(repo, root / "trees") + sweep_pool(repo, root / "pool")
        for commit in (start, head):
            if repo.resolve(commit) is None:
                raise GitError(f"the shadow repository no longer holds commit {commit[:12]} of run {run_id}")
        repo.update_ref(f"refs/paicli/{run_id}/integration", head)
        run = cls(repo, run_id, start, TaskTrees(repo, root / "pool"), bus, len(removed))
        run._head = (head, "")
        run.merges = list(merges)
        run._attempts = dict(attempts)
        return run

    @property
    def head(self) -> str:
        return self._head[0]

    def _head_tree(self) -> str:
        head, tree = self._head
        if not tree:
            tree = self.repo.git().run("rev-parse", f"{head}^{{tree}}")
            self._head = (head, tree)
        return tree

    # --- attempts -------------------------------------------------------------------

    def attempt(self, task_id: str, slot: str) -> Attempt:
        """A fresh tree for the next attempt of ``task_id`` on the current
        integration head: a retry never sees its own rejected attempt."""
        self.wait_receipts(task_id)  # a retry's events follow its earlier attempt's
        with self._count_lock:
            number = self._attempts[task_id] = self._attempts.get(task_id, 0) + 1
        with self._merge_lock:
            base, base_tree = self.head, self._head_tree()
        path = self.trees.checkout(slot, base)
        self._publish(TaskBase(slot, task_id, number, base))
        return Attempt(task_id, number, base, path, slot, base_tree, self.trees.journal(slot))

    def commit(self, attempt: Attempt) -> str:
        """Keep what the attempt changed as a commit on its own ref."""
        result, tree = self.trees.commit(attempt.path, attempt.base, f"paicli {self.run_id}: {attempt.task_id} "
                                         f"attempt {attempt.number}", base_tree=attempt.base_tree,
                                         journal=attempt.journal)
        self._trees[result] = tree
        # The receipt (the attempt's ref, its counts, the event) is written
        # beside the merge that usually follows, not before it: two git calls
        # off a task's critical path. Anything published about the attempt
        # waits for it, so the ledger still reads committed, then merged.
        receipt = _Receipt(target=self._receipt, args=(attempt, result), name="paicli-receipt", daemon=True)
        with self._count_lock:
            self._receipts[(attempt.task_id, attempt.number)] = receipt
        receipt.start()
        return result

    def _receipt(self, attempt: Attempt, result: str) -> None:
        self.refs.write(f"refs/paicli/{self.run_id}/task/{attempt.task_id}/{attempt.number}", result)
        changes = self.changes(attempt.base, result)
        self._publish(TaskCommitted(attempt.slot, attempt.task_id, attempt.number, attempt.base, result, len(changes),
                                    sum(max(c.added, 0) for c in changes), sum(max(c.removed, 0) for c in changes)))

    def _wait_receipt(self, attempt: Attempt) -> None:
        self.wait_receipts(attempt.task_id)

    def wait_receipts(self, task_id: str) -> None:
        """Until every committed attempt of ``task_id`` has its receipt."""
        with self._count_lock:
            keys = [key for key in self._receipts if key[0] == task_id]
            receipts = [self._receipts.pop(key) for key in keys]
        for receipt in receipts:
            receipt.wait()

    def changes(self, base: str, result: str) -> list[FileChange]:
        return [] if base == result else numstat(self.repo, base, result)

    def diff(self, base: str, result: str, limit: int = DIFF_LIMIT) -> str:
        return diff_text(self.repo, base, result, limit)

    # --- merge-back -----------------------------------------------------------------

    def merge(self, attempt: Attempt, result: str) -> MergeResult:
        """Merge a completed or approved attempt into the integration head."""
        with self._merge_lock:
            into = self.head
            if result == attempt.base:
                return MergeResult("empty", into, result)
            if into == attempt.base and result in self._trees:
                # Nothing merged since the attempt began: its tree is the merge.
                return self._record(attempt, into, result, self._trees[result], resolved=False)
            outcome = merge(self.repo, into, result, theirs_label=attempt.task_id)
            if not outcome.clean:
                self._wait_receipt(attempt)
                self._publish(MergeConflict(attempt.slot, attempt.task_id, attempt.number, into, result,
                                            tuple(outcome.paths)))
                return MergeResult("conflict", into, result, outcome=outcome)
            return self._record(attempt, into, result, outcome.tree, resolved=False)

    def settle(self, attempt: Attempt, conflict: MergeResult, choices: Mapping[str, str | bytes | None]) -> MergeResult:
        """Merge a conflicted attempt with the person's decision per file.
        When the integration head moved meanwhile, the merge is redone and a
        new conflict may come back."""
        assert conflict.outcome is not None
        with self._merge_lock:
            into = self.head
            outcome = conflict.outcome
            if into != conflict.into:
                outcome = merge(self.repo, into, conflict.result, theirs_label=attempt.task_id)
                unknown = [p for p in outcome.paths if p not in choices]
                if unknown:
                    return MergeResult("conflict", into, conflict.result, outcome=outcome)
            tree = resolve(self.repo, outcome, {p: choices[p] for p in outcome.paths})
            self._publish(ConflictDecided(attempt.slot, attempt.task_id, attempt.number, "resolve",
                                          tuple(outcome.paths)))
            return self._record(attempt, into, conflict.result, tree, resolved=True)

    def decided(self, attempt: Attempt, choice: str, files: tuple[str, ...] = ()) -> None:
        """Record a decision that merges nothing (rerun, drop, fail)."""
        self._publish(ConflictDecided(attempt.slot, attempt.task_id, attempt.number, choice, files))

    def _record(self, attempt: Attempt, into: str, result: str, tree: str, *, resolved: bool) -> MergeResult:
        merge_commit = self.repo.git().run(
            "commit-tree", tree, "-p", into, "-p", result, "-m", f"paicli {self.run_id}: merge {attempt.task_id}")
        self._wait_receipt(attempt)
        self.refs.write(self.integration_ref, merge_commit, into)
        self._head = (merge_commit, tree)
        self.merges.append((attempt.task_id, merge_commit))
        self._publish(TaskMerged(attempt.slot, attempt.task_id, attempt.number, into, result, merge_commit, resolved))
        return MergeResult("merged", into, result, merge_commit)

    # --- the end ----------------------------------------------------------------------

    def flush_refs(self) -> None:
        """Until the run's refs name what it has done so far (raises GitError when one could not be written)."""
        self.refs.flush()

    def close(self) -> None:
        """Give the run's task trees back to the pool (the refs stay for the report)."""
        with self._count_lock:
            receipts, self._receipts = list(self._receipts.values()), {}
        for receipt in receipts:
            receipt.wait(raise_error=False)
        self.refs.flush(raise_error=False)
        self.trees.close()

    def _publish(self, event) -> None:
        if self.bus is not None:
            self.bus.publish(event)
