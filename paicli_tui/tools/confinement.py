"""Workspace sandbox (P-6.3): every path a tool touches must resolve, with
symlinks followed, to a place inside the workspace.

``resolve_in_workspace`` is a check by name, good for messages and an early
refusal; it cannot hold on its own, since a name may change before it is
used. The file tools open through safe_fs, which re-checks every component
while it opens it."""

from __future__ import annotations

import os
from pathlib import Path

from paicli_tui.tools.base import ToolError

#: Directories that are never worth searching or listing recursively.
SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache",
                       ".pytest_cache", ".ruff_cache", ".tox"})


def resolve_in_workspace(workspace: Path, raw: str) -> Path:
    """The resolved absolute path for ``raw`` (relative to the workspace or
    absolute), or ToolError naming the path when it points outside."""
    if not raw or not raw.strip():
        raise ToolError("refused: empty path")
    if "\0" in raw:
        raise ToolError(f"refused: path {raw!r} contains a NUL byte")
    if raw.startswith("~"):
        raise ToolError(f"refused: path {raw!r} is outside the workspace (home directory)")
    root = workspace.resolve()
    # realpath follows symlinks even when their target does not exist yet, so
    # a dangling link pointing out is caught before anything writes through it.
    resolved = _realpath(root / raw, raw)
    if resolved == root or resolved.is_relative_to(root):
        return resolved
    lexical = Path(os.path.normpath(root / raw))
    if lexical == root or lexical.is_relative_to(root):
        raise ToolError(f"refused: path {raw!r} resolves outside the workspace through a symlink (to {resolved})")
    raise ToolError(f"refused: path {raw!r} is outside the workspace")


def _realpath(path: Path, raw: str) -> Path:
    # realpath reads each symlink after looking at it; when another process
    # swaps the entry in between, readlink fails (EINVAL): look again.
    for _ in range(8):
        try:
            return Path(os.path.realpath(path))
        except OSError as exc:
            error = exc
    raise ToolError(f"refused: path {raw!r} kept changing while it was checked ({error.strerror})")


def display_path(workspace: Path, path: Path) -> str:
    """``path`` relative to the workspace, for messages and summaries."""
    root = workspace.resolve()
    try:
        relative = path.relative_to(root)
    except ValueError:
        return str(path)
    return str(relative) if str(relative) != "." else "."


def is_virtualenv(directory: Path) -> bool:
    return (directory / "pyvenv.cfg").is_file()


def looks_binary(head: bytes) -> bool:
    return b"\0" in head
