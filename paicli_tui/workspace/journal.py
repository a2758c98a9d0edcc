"""What may have changed a task tree's files since it was last checked out.

The file tools say which file they write; anything else that runs in a tree
(a command, a plan's check, a hook, an MCP tool, a remote turn) may change
any file. While only the file tools wrote, a task's commit stages just their
paths and the tree's next recycle removes just those files, instead of
``add -A`` and ``clean -ffdx`` walking every file of the tree: on a
5,000-file tree on two busy cores those walks are most of what isolation
adds to a task (bench/isolation_trace.py). Once anything else ran, both
walk the whole tree as before.

A journal counts only once ``watch``ed: the tool registry bound to the tree
watches it, and from then on every change to the tree goes through that
registry or marks the journal. Code that writes in a tree without a
registry (a test, a bench) leaves it unwatched: the commit and the
recycle walk the whole tree."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Callable, Iterable

#: Past this many written files, one walk of the tree is cheaper than naming them.
MAX_PATHS = 400


class WriteJournal:
    def __init__(self, root: Path, *, exact: bool = True) -> None:
        """``exact``: the tree holds exactly its commit now (just checked out and cleaned)."""
        self.root = Path(os.path.realpath(root))
        self._spoiled = not exact
        self._known = False
        self._paths: set[str] = set()
        self._lock = threading.Lock()
        self._late: Callable[[], None] | None = None

    @classmethod
    def unknown(cls, root: Path) -> "WriteJournal":
        """A tree whose history this process does not know (fresh from the pool, or a failed recycle)."""
        return cls(root, exact=False)

    def watch(self) -> None:
        """From now on every change to the tree is told to this journal."""
        with self._lock:
            self._known = not self._spoiled

    @property
    def known(self) -> bool:
        with self._lock:
            return self._known

    def paths(self) -> list[str]:
        """The tree-relative paths the file tools wrote (meaningful only while ``known``)."""
        with self._lock:
            return sorted(self._paths)

    def retire(self, late: Callable[[], None]) -> None:
        """The tree moved on to another attempt: a call still reporting here
        (a turn that outlived its task) wrote into that attempt's tree, so
        ``late`` is told instead."""
        with self._lock:
            self._late = late

    def anything(self) -> None:
        """Something that may write any file ran in the tree."""
        with self._lock:
            late = self._late
        if late is not None:
            late()
            return
        with self._lock:
            self._known = False
            self._spoiled = True
            self._paths.clear()

    def wrote(self, paths: Iterable[str]) -> None:
        """A file tool is about to write ``paths`` (relative to the tree, or absolute)."""
        with self._lock:
            late = self._late
        if late is not None:
            late()
            return
        for path in paths:
            relative = self._inside(path)
            if relative is None:
                continue
            with self._lock:
                if not self._known:
                    return
                self._paths.add(relative)
                if len(self._paths) > MAX_PATHS:
                    self._known, self._spoiled = False, True
                    self._paths.clear()

    def _under(self, full: str) -> bool:
        root = str(self.root)
        return full != root and os.path.commonpath([full, root]) == root

    def _inside(self, path: str) -> str | None:
        """``path`` relative to the tree; None when it is outside it (not the
        tree's business). A path through a symbolic link, or into ``.git``,
        makes the journal unknown: its file may be elsewhere in the tree."""
        full = os.path.normpath(os.path.join(self.root, path))
        if not self._under(full):
            if self._under(os.path.realpath(full)):
                self.anything()  # the tree reached by another name (a link to it or above it)
            return None
        relative = os.path.relpath(full, self.root)
        if relative.split(os.sep, 1)[0] == ".git" or os.path.islink(full) \
                or os.path.realpath(os.path.dirname(full)) != os.path.dirname(full):
            self.anything()
            return None
        return relative.replace(os.sep, "/")

    def remove_written(self) -> bool:
        """Remove the files the file tools wrote, and the folders left empty
        by it (git keeps no empty folder, so none was in the tree's commit).
        False when something is not as the journal says (a folder where a
        file was written): the caller cleans the whole tree instead."""
        folders: set[str] = set()
        for relative in self.paths():
            full = os.path.join(self.root, relative)
            if os.path.isdir(full) and not os.path.islink(full):
                return False
            try:
                os.unlink(full)
            except FileNotFoundError:
                pass
            folders.update(_parents(relative))
        for folder in sorted(folders, key=lambda f: -f.count("/")):
            try:
                os.rmdir(os.path.join(self.root, folder))
            except OSError:
                pass  # not empty: it holds tracked files
        return True


def _parents(relative: str) -> list[str]:
    parts = relative.split("/")[:-1]
    return ["/".join(parts[:end]) for end in range(1, len(parts) + 1)]
