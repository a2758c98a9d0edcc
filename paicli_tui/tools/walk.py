"""Enumerating the workspace's files the way a developer would see them:
without .git, virtualenvs, node_modules, caches, and — in a git repository —
without what .gitignore ignores. ``rg --files`` does the walk: it applies
.gitignore itself, never follows symlinks, and reports an unreadable
directory on stderr instead of giving up on the whole tree."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from paicli_tui.tools.base import ToolContext, ToolError
from paicli_tui.tools.rg import RgProcess, common_flags, fatal_error, glob_escape, unreadable_paths

VENV_MARKER = "pyvenv.cfg"


@dataclass
class Listing:
    files: list[str] = field(default_factory=list)
    """Workspace-relative '/'-separated paths, sorted."""
    unreadable: list[str] = field(default_factory=list)
    """Workspace-relative paths that could not be read (directories end in '/')."""


def workspace_files(root: Path, start: Path, ctx: ToolContext, tool: str) -> Listing:
    """Files under ``start`` (inside ``root``, both resolved), skipping
    virtualenvs below ``start``."""
    listing = _rg_files(root, start, ctx, tool)
    venvs = {str(PurePosixPath(name).parent) for name in listing.files if PurePosixPath(name).name == VENV_MARKER}
    venvs.discard(relative_arg(root, start))
    if venvs:
        listing.files = [name for name in listing.files if not _below_any(name, venvs)]
    return listing


def virtualenv_excludes(root: Path, start: Path, ctx: ToolContext, tool: str) -> list[str]:
    """rg globs that leave out every virtualenv below ``start`` (a directory
    holding pyvenv.cfg), found with a walk that reads no file contents."""
    markers = _rg_files(root, start, ctx, tool, globs=(VENV_MARKER,)).files
    here = relative_arg(root, start)
    dirs = {str(PurePosixPath(name).parent) for name in markers}
    return [f"!/{glob_escape(d)}/" for d in sorted(dirs) if d != here]


def _rg_files(root: Path, start: Path, ctx: ToolContext, tool: str, globs: tuple[str, ...] = ()) -> Listing:
    listing = Listing()
    args = ["--files", *common_flags(), *[flag for glob in globs for flag in ("--glob", glob)],
            "--", search_arg(root, start)]
    with RgProcess(args, root, ctx, tool) as rg:
        for raw in rg.lines():
            if raw:
                listing.files.append(_decode(raw))
        if rg.returncode not in (0, 1) and not listing.files and not unreadable_paths(rg.stderr, root):
            raise ToolError(f"{tool} failed: {fatal_error(rg.stderr)}")
        listing.unreadable = shown_unreadable(root, rg.stderr)
    listing.files.sort()
    return listing


def search_arg(root: Path, start: Path) -> str:
    """How rg is told where to look, relative to ``root`` (its cwd) so the
    paths it prints are workspace-relative."""
    relative = relative_arg(root, start)
    return relative if relative != "." else "."


def relative_arg(root: Path, start: Path) -> str:
    return start.relative_to(root).as_posix() or "."


def shown_unreadable(root: Path, stderr: str) -> list[str]:
    shown: dict[str, None] = {}  # rg may report one path twice; keep the first order
    for path in unreadable_paths(stderr, root):
        shown[path + "/" if os.path.isdir(root / path) and not path.endswith("/") else path] = None
    return list(shown)


def skipped_note(unreadable: list[str], limit: int = 5) -> str:
    """'[skipped 2 unreadable paths: a/, b.txt]' or '' when nothing was skipped."""
    if not unreadable:
        return ""
    word = "path" if len(unreadable) == 1 else "paths"
    names = ", ".join(unreadable[:limit]) + (", …" if len(unreadable) > limit else "")
    return f"[skipped {len(unreadable)} unreadable {word}: {names}]"


def _decode(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="surrogateescape")
    return text[2:] if text.startswith("./") else text


def _below_any(name: str, dirs: set[str]) -> bool:
    parent = PurePosixPath(name).parent
    while str(parent) != ".":
        if str(parent) in dirs:
            return True
        parent = parent.parent
    return False
