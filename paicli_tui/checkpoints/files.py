"""Reading a workspace file's state and putting an old state back, through
the same race-free walk the file tools use (``tools/safe_fs.py``): an undo
can never be led outside the workspace by a symlink swapped in meanwhile."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path, PurePosixPath
from typing import BinaryIO, Callable

from paicli_tui.checkpoints.store import CHUNK, MISSING, FileState
from paicli_tui.tools import safe_fs
from paicli_tui.tools.base import ToolError
from paicli_tui.tools.confinement import display_path, resolve_in_workspace

#: (source, size) → (kept, sha256, bytes read)
Keeper = Callable[[BinaryIO, int], tuple[bool, str, int]]


def canonical(workspace: Path, raw: str) -> str:
    """The workspace-relative name a file is recorded under (symlinks inside
    the workspace resolved, so two names for one file are one file)."""
    return display_path(workspace, resolve_in_workspace(workspace, raw))


def snapshot(workspace: Path, path: str, keep: Keeper) -> tuple[FileState, bool] | None:
    """The file's state and whether its bytes were kept; None when ``path``
    is something a tool cannot change (a directory, a FIFO): the tool refuses."""
    found = safe_fs.stat_file(workspace, path, path)
    if found is None:
        return MISSING, True
    if not stat.S_ISREG(found.st_mode):
        return None
    with safe_fs.open_file(workspace, path, path) as handle:
        info = os.fstat(handle.fileno())
        kept, digest, size = keep(handle, info.st_size)
    return FileState(True, digest, stat.S_IMODE(info.st_mode), size), kept


def current_state(workspace: Path, path: str) -> FileState:
    """What is there now (hashed, not kept). A directory or other non-file
    counts as a state no undo expects: its hash is empty and exists is True."""
    try:
        found = safe_fs.stat_file(workspace, path, path)
    except ToolError:
        return FileState(True, "", None, 0)
    if found is None:
        return MISSING
    if not stat.S_ISREG(found.st_mode):
        return FileState(True, "", stat.S_IMODE(found.st_mode), 0)
    with safe_fs.open_file(workspace, path, path) as handle:
        info = os.fstat(handle.fileno())
        digest = hashlib.sha256()
        size = 0
        for chunk in iter(lambda: handle.read(CHUNK), b""):
            digest.update(chunk)
            size += len(chunk)
    return FileState(True, digest.hexdigest(), stat.S_IMODE(info.st_mode), size)


def read_current(workspace: Path, path: str, limit: int) -> bytes | None:
    """The file's bytes (at most ``limit`` + 1), or None when it is not there."""
    try:
        with safe_fs.open_file(workspace, path, path) as handle:
            return handle.read(limit + 1)
    except ToolError:
        return None


def missing_parents(workspace: Path, path: str) -> list[str]:
    """Parent folders of ``path`` that do not exist yet, outermost first."""
    missing = []
    parents = list(PurePosixPath(path).parents)[:-1]  # drop "."
    for parent in reversed(parents):
        if missing or safe_fs.stat_file(workspace, str(parent), str(parent)) is None:
            missing.append(str(parent))
    return missing


def restore(workspace: Path, path: str, state: FileState, data: bytes | None, created_dirs: tuple[str, ...]) -> None:
    """Put ``state`` back: the old bytes with the old mode, or no file (and
    no folder the change created, when it is empty again)."""
    if state.exists:
        safe_fs.replace_file(workspace, path, path, data or b"", mode=state.mode)
        return
    safe_fs.remove_file(workspace, path, path)
    for folder in reversed(created_dirs):
        safe_fs.remove_empty_dir(workspace, folder, folder)
