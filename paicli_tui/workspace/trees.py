"""Task trees: worktrees of the shadow repository, kept warm in a pool per
workspace across runs and recycled from task to task.

A cold checkout of 5,000 files costs 2–7 s on this machine's disk (the cost
is writing the files; no git flag helps), while moving a warm tree to a new
base (``checkout -f`` + ``clean -ffdx``) costs 50–100 ms. So the trees stay
in ``<root>/pool/tree-<n>`` when a run ends and the next run of the same
workspace leases them again. A lease is an ``flock`` on ``tree-<n>.lock``:
the kernel drops it when its process dies, so a crashed run's trees simply
become free again — nothing to sweep but what is over the pool's size.

``warm`` readies the trees a run will need in the background (recycled to
the run's start, or made cold when the pool has none), so the first task on
a slot usually finds its tree at its base and pays no git call at all."""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import threading
from pathlib import Path

from paicli_tui.workspace.git import Git, GitError
from paicli_tui.workspace.journal import WriteJournal
from paicli_tui.workspace.shadow import ShadowRepo

OWNER_FILE = "owner.json"
#: Trees kept warm per workspace when their runs end; more are made while a
#: run needs them and removed when it ends.
POOL_SIZE = 4
_TREE = re.compile(r"tree-(\d+)")


def process_start(pid: int) -> str:
    """The start time of ``pid`` in clock ticks since boot ("" when unknown):
    together with the pid it names one process, even after pid reuse."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[1].split()[19]


class _Lease:
    """One pool tree held by this process until ``release``."""

    def __init__(self, path: Path, handle: int) -> None:
        self.path = path
        self.handle = handle
        #: The commit the tree holds clean (nothing run in it since), or "".
        self.ready = ""
        #: What changed the tree since its last recycle (unknown: a tree from the pool).
        self.journal = WriteJournal.unknown(path)

    def release(self) -> None:
        os.close(self.handle)


def _try_lease(path: Path) -> _Lease | None:
    handle = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(handle)
        return None
    return _Lease(path, handle)


def _index(path: Path) -> int:
    found = _TREE.fullmatch(path.name)
    return int(found.group(1)) if found else -1


class TaskTrees:
    """The trees one run leases from the workspace's pool in ``root``,
    one per slot."""

    def __init__(self, repo: ShadowRepo, root: Path, keep: int = POOL_SIZE) -> None:
        self.repo = repo
        self.root = root
        self.keep = keep
        self.root.mkdir(parents=True, exist_ok=True)
        self._leases: dict[str, _Lease] = {}
        self._closed = False
        self._slot_locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def checkout(self, slot: str, commit: str) -> Path:
        """The slot's tree holding exactly ``commit``: nothing of what ran in
        it before survives, untracked and ignored files included."""
        with self._slot_lock(slot):
            lease = self._lease(slot)
            # Not ready from here on, also when the recycle fails half-way.
            was_ready, lease.ready = lease.ready, ""
            if was_ready != commit:
                self._recycle(lease, commit, clean=not was_ready)
            return lease.path

    def journal(self, slot: str) -> WriteJournal:
        """What the slot's current task wrote since its tree was checked out."""
        with self._lock:
            return self._leases[slot].journal

    def is_ready(self, slot: str) -> bool:
        """Whether the slot's tree is readied and waits, unused, for a task."""
        with self._lock:
            lease = self._leases.get(slot)
            return lease is not None and bool(lease.ready)

    def warm(self, slots: list[str], commit: str) -> threading.Thread:
        """Ready the slots' trees at ``commit`` in the background, so a task
        that later takes one finds it there. A slot whose tree a task has
        taken is left alone (the task may be working in it)."""
        def make() -> None:
            for slot in slots:
                try:
                    with self._slot_lock(slot):
                        with self._lock:
                            taken = slot in self._leases and not self._leases[slot].ready
                        if taken:
                            continue
                        lease = self._lease(slot)
                        was_ready, lease.ready = lease.ready, ""
                        if was_ready != commit:
                            self._recycle(lease, commit, clean=not was_ready)
                        lease.ready = commit
                except Exception:  # noqa: BLE001 — the task's own checkout retries and reports it
                    return
        thread = threading.Thread(target=make, name="paicli-warm-trees", daemon=True)
        thread.start()
        return thread

    def _slot_lock(self, slot: str) -> threading.Lock:
        with self._lock:
            return self._slot_locks.setdefault(slot, threading.Lock())

    def _lease(self, slot: str) -> _Lease:
        """The slot's tree: its own, a free one from the pool, or a new one."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the run's task trees are closed")
            lease = self._leases.get(slot)
            if lease is not None:
                return lease
            held = {_index(held.path) for held in self._leases.values()}
            pool = sorted((p for p in self.root.iterdir() if _index(p) >= 0 and p.is_dir()), key=_index)
            lease = None
            for path in pool:
                if _index(path) in held:
                    continue
                lease = _try_lease(path)
                if lease is not None:
                    break
            else:
                # A number no tree has; another process may be making it at
                # this moment, then the next one.
                taken = held | {_index(p) for p in pool}
                number = -1
                while lease is None:
                    number = next(n for n in range(number + 1, number + len(taken) + 2) if n not in taken)
                    lease = _try_lease(self.root / f"tree-{number}")
            self._leases[slot] = lease
            return lease

    def _recycle(self, lease: _Lease, commit: str, *, clean: bool) -> None:
        """Move the tree to ``commit``. When only the file tools wrote in it,
        removing their files leaves it holding its last checkout plus
        what its index records, which ``checkout -f`` undoes: no walk of
        the whole tree to clean it."""
        journal, lease.journal = lease.journal, WriteJournal.unknown(lease.path)
        journal.retire(lambda: lease.journal.anything())
        if (lease.path / ".git").is_file():
            tree = Git(cwd=lease.path)
            try:
                if clean and journal.known and journal.remove_written():
                    clean = False
                tree.run("checkout", "-q", "-f", "--detach", commit)
                if clean:
                    tree.run("clean", "-q", "-ffdx")
                lease.journal = WriteJournal(lease.path)
                return
            except (GitError, OSError):
                pass  # a tree broken by a crash or by hand: made again below
        self._create(lease.path, commit)
        lease.journal = WriteJournal(lease.path)

    def _create(self, path: Path, commit: str) -> None:
        if path.exists():
            shutil.rmtree(path)
        with self.repo.lock:
            self.repo.git().run("worktree", "prune")
            self.repo.git().run("worktree", "add", "-q", "--detach", str(path), commit)

    def commit(self, path: Path, base: str, message: str, *, base_tree: str = "",
               journal: WriteJournal | None = None) -> tuple[str, str]:
        """A commit of the tree's files as they are now, with ``base`` as its
        only parent, and its tree; ``base`` itself when nothing changed. Built
        from the files whatever the agent did with git inside the tree, so a
        commit or a checkout of its own cannot change what is merged. While
        ``journal`` knows every file written, only those are staged."""
        tree_git = Git(cwd=path)
        if journal is None or not journal.known:
            tree_git.run("add", "-A", ".")
        elif journal.paths():
            try:
                tree_git.run("add", "-A", "--", *(f":(literal){p}" for p in journal.paths()))
            except GitError:
                # An ignored file, or one written and then not there: the walk
                # stages what is there and leaves ignored files out.
                journal.anything()
                tree_git.run("add", "-A", ".")
        tree = tree_git.run("write-tree")
        if tree == (base_tree or self.repo.git().run("rev-parse", f"{base}^{{tree}}")):
            return base, tree
        return self.repo.git().run("commit-tree", tree, "-p", base, "-m", message), tree

    def close(self) -> None:
        """Give the trees back to the pool; remove those over its size."""
        with self._lock:
            self._closed = True
            leases = list(self._leases.values())
            self._leases.clear()
        over = [lease.path for lease in leases if _index(lease.path) >= self.keep]
        for path in over:
            shutil.rmtree(path, ignore_errors=True)
        for lease in leases:
            if lease.path in over:
                lease.path.with_name(lease.path.name + ".lock").unlink(missing_ok=True)
            lease.release()
        if over:
            with self.repo.lock:
                self.repo.git().run("worktree", "prune")


def sweep_pool(repo: ShadowRepo, root: Path, keep: int = POOL_SIZE) -> list[Path]:
    """Remove the pool's trees over its size that no live process holds (a
    crashed run's extra trees); the warm ones are kept. Returns those removed."""
    removed: list[Path] = []
    if not root.is_dir():
        return removed
    for path in sorted(root.iterdir(), key=_index):
        if _index(path) < keep or not path.is_dir():
            continue
        lease = _try_lease(path)
        if lease is None:
            continue
        shutil.rmtree(path, ignore_errors=True)
        path.with_name(path.name + ".lock").unlink(missing_ok=True)
        lease.release()
        removed.append(path)
    if removed:
        with repo.lock:
            repo.git().run("worktree", "prune")
    return removed


def pool_in_use(root: Path) -> bool:
    """Whether a live process holds one of the pool's trees."""
    if not root.is_dir():
        return False
    for path in root.iterdir():
        if _index(path) < 0 or not path.is_dir():
            continue
        lease = _try_lease(path)
        if lease is None:
            return True
        lease.release()
    return False


def sweep(repo: ShadowRepo, root: Path) -> list[Path]:
    """Remove per-run tree sets (the layout before the pool) whose owning
    process is gone; returns them."""
    removed: list[Path] = []
    if not root.is_dir():
        return removed
    for owner_dir in sorted(root.iterdir()):
        if not owner_dir.is_dir() or _alive(owner_dir / OWNER_FILE):
            continue
        shutil.rmtree(owner_dir, ignore_errors=True)
        removed.append(owner_dir)
    if removed:
        with repo.lock:
            repo.git().run("worktree", "prune")
    return removed


def _alive(owner_file: Path) -> bool:
    try:
        owner = json.loads(owner_file.read_text())
        pid = int(owner["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    recorded = str(owner.get("start", ""))
    return not recorded or recorded == process_start(pid)
