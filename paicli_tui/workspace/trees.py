"""Task trees: worktrees of the shadow repository, one per parallel slot,
recycled from task to task.

A cold checkout of 5,000 files costs 0.5–5 s on this machine's disk (the
cost is writing the files; no git flag helps), while moving a warm tree to a
new base (``checkout -f`` + ``clean -ffdx``) costs about 55 ms. So a slot's
tree is made once, recycled for every task and retry it runs, and removed
when the run's trees are closed; a tree a crashed process left is removed
by ``sweep`` at the next start. ``owner.json`` names the process that owns a
set of trees."""

from __future__ import annotations

import json
import os
import shutil
import threading
import uuid
from pathlib import Path

from paicli_tui.workspace.git import Git
from paicli_tui.workspace.shadow import ShadowRepo

OWNER_FILE = "owner.json"


def process_start(pid: int) -> str:
    """The start time of ``pid`` in clock ticks since boot ("" when unknown):
    together with the pid it names one process, even after pid reuse."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[1].split()[19]


class TaskTrees:
    """The task trees of one owner (a session or a run) under ``root``."""

    def __init__(self, repo: ShadowRepo, root: Path) -> None:
        self.repo = repo
        self.root = root / f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.root.mkdir(parents=True, exist_ok=True)
        owner = {"pid": os.getpid(), "start": process_start(os.getpid())}
        (self.root / OWNER_FILE).write_text(json.dumps(owner))
        self._trees: dict[str, Path] = {}
        self._slot_locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def checkout(self, slot: str, commit: str) -> Path:
        """The slot's tree holding exactly ``commit``: nothing of what ran in
        it before survives, untracked and ignored files included."""
        with self._slot_lock(slot):
            with self._lock:
                path = self._trees.get(slot)
            if path is None or not (path / ".git").exists():
                return self._create(slot, commit)
            tree = Git(cwd=path)
            tree.run("checkout", "-q", "-f", "--detach", commit)
            tree.run("clean", "-q", "-ffdx")
            return path

    def warm(self, slots: list[str], commit: str) -> threading.Thread:
        """Make the slots' trees in the background (a cold checkout is the
        slow part), so a task that later takes one only recycles it."""
        def make() -> None:
            for slot in slots:
                try:
                    self._ensure(slot, commit)
                except Exception:  # noqa: BLE001 — the task's own checkout retries and reports it
                    return
        thread = threading.Thread(target=make, name="paicli-warm-trees", daemon=True)
        thread.start()
        return thread

    def _ensure(self, slot: str, commit: str) -> None:
        """Make the slot's tree unless it exists; never recycle it (a task
        that took the slot meanwhile may be working in it)."""
        with self._slot_lock(slot):
            with self._lock:
                path = self._trees.get(slot)
            if path is None or not (path / ".git").exists():
                self._create(slot, commit)

    def _slot_lock(self, slot: str) -> threading.Lock:
        with self._lock:
            return self._slot_locks.setdefault(slot, threading.Lock())

    def _create(self, slot: str, commit: str) -> Path:
        path = self.root / _safe(slot)
        if path.exists():
            shutil.rmtree(path)
        with self.repo.lock:
            self.repo.git().run("worktree", "add", "-q", "--detach", str(path), commit)
        with self._lock:
            self._trees[slot] = path
        return path

    def commit(self, path: Path, base: str, message: str, *, base_tree: str = "") -> str:
        """A commit of the tree's files as they are now, with ``base`` as its
        only parent; ``base`` itself when nothing changed. Built from the files
        whatever the agent did with git inside the tree, so a commit or a
        checkout of its own cannot change what is merged."""
        tree_git = Git(cwd=path)
        tree_git.run("add", "-A", ".")
        tree = tree_git.run("write-tree")
        if tree == (base_tree or self.repo.git().run("rev-parse", f"{base}^{{tree}}")):
            return base
        return self.repo.git().run("commit-tree", tree, "-p", base, "-m", message)

    def close(self) -> None:
        """Remove every tree and the owner's directory."""
        shutil.rmtree(self.root, ignore_errors=True)
        with self.repo.lock:
            self.repo.git().run("worktree", "prune")
        with self._lock:
            self._trees.clear()


def _safe(slot: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in slot) or "slot"


def sweep(repo: ShadowRepo, root: Path) -> list[Path]:
    """Remove the task trees whose owning process is gone; returns them."""
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
