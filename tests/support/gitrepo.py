"""Real git repositories in temporary directories for the isolation tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"


def git(cwd: Path, *args: str) -> str:
    # No optional locks: a plain ``git status`` would refresh (rewrite) the
    # index, and the tests check that nothing else does.
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env=env)
    return done.stdout.strip()


def make_git_workspace(root: Path) -> Path:
    """A repository with ``src/calc.py`` committed, an uncommitted edit to
    README.md, an untracked ``notes.txt`` and ignored ``run.log``/``build/``."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "person@example.com")
    git(root, "config", "user.name", "Person")
    (root / "src").mkdir()
    (root / "src" / "calc.py").write_text(CALC)
    (root / "README.md").write_text("# calc\n")
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    (root / "README.md").write_text("# calc\n\nuncommitted line\n")
    (root / "notes.txt").write_text("untracked\n")
    (root / "run.log").write_text("ignored\n")
    (root / "build").mkdir()
    (root / "build" / "out.bin").write_bytes(b"\0ignored")
    return root


def make_plain_workspace(root: Path) -> Path:
    """The same files without git."""
    (root / "src").mkdir(parents=True)
    (root / "src" / "calc.py").write_text(CALC)
    (root / "README.md").write_text("# calc\n\nuncommitted line\n")
    (root / "notes.txt").write_text("untracked\n")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "dep.js").write_text("excluded\n")
    return root


def person_state(root: Path) -> dict:
    """What must never change in the person's repository."""
    index = root / ".git" / "index"
    return {
        "index": index.read_bytes(),
        "index_mtime": index.stat().st_mtime_ns,
        "refs": git(root, "for-each-ref"),
        "stash": git(root, "stash", "list"),
        "worktrees": (root / ".git" / "worktrees").exists(),
        "status": git(root, "status", "--porcelain"),
    }
