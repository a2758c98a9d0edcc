"""Enumerating the workspace's files the way a developer would see them:
without .git, virtualenvs, node_modules, caches, and — in a git repository —
without what .gitignore ignores."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path
from typing import Iterator

from paicli_tui.tools.sandbox import SKIP_DIRS, is_virtualenv

GIT_TIMEOUT_S = 20


def workspace_files(start: Path, cancel: threading.Event | None = None) -> Iterator[Path]:
    """Files under ``start`` (an absolute directory inside the workspace):
    sorted in a git repository, directory by directory otherwise."""
    listed = _git_listing(start)
    candidates = listed if listed is not None else _walk(start)
    venv_cache: dict[Path, bool] = {}
    for path in candidates:
        if cancel is not None and cancel.is_set():
            return
        relative = path.relative_to(start)
        if any(part in SKIP_DIRS for part in relative.parts[:-1]):
            continue
        if _inside_virtualenv(start, relative, venv_cache):
            continue
        if path.is_file():
            yield path


def _git_listing(start: Path) -> list[Path] | None:
    """Tracked plus untracked-but-not-ignored files, or None outside a git
    repository (or without git)."""
    try:
        completed = subprocess.run(
            ["git", "-C", str(start), "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            capture_output=True, timeout=GIT_TIMEOUT_S, stdin=subprocess.DEVNULL,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if completed.returncode != 0:
        return None
    names = {name for name in completed.stdout.decode("utf-8", errors="surrogateescape").split("\0") if name}
    return [start / name for name in sorted(names)]


def _walk(start: Path) -> Iterator[Path]:
    for root, dirnames, filenames in os.walk(start, followlinks=False):
        here = Path(root)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not is_virtualenv(here / d))
        for name in sorted(filenames):
            yield here / name


def _inside_virtualenv(start: Path, relative: Path, cache: dict[Path, bool]) -> bool:
    directory = start
    for part in relative.parts[:-1]:
        directory = directory / part
        if directory not in cache:
            cache[directory] = is_virtualenv(directory)
        if cache[directory]:
            return True
    return False
