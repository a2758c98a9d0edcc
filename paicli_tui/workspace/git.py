"""The git command line, run with an environment nothing leaks into.

The git CLI rather than pygit2 or dulwich: ``merge-tree --write-tree``
(git ≥ 2.38) merges without a work tree using the same ``ort`` strategy the
person's own git uses (renames included), each call costs 10–50 ms, and the
tests need a real git anyway. A library would add a binary dependency whose
merge differs from git's in rename and directory edge cases."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Mapping

MIN_VERSION = (2, 38)

#: Variables that point git at another repository, index or object store; an
#: inherited one would make every call below act on the wrong repository.
_REPOSITORY_VARIABLES = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX", "GIT_CEILING_DIRECTORIES",
)
#: Config that would make a plumbing call sign, prompt or run hooks.
_CONFIG = ("-c", "commit.gpgSign=false", "-c", "core.quotePath=off", "-c", "advice.detachedHead=false",
           "-c", "core.hooksPath=/dev/null", "-c", "gc.auto=0", "-c", "maintenance.auto=false")


class GitError(RuntimeError):
    """A git command failed; the message is git's own first error line."""


class IsolationUnavailable(RuntimeError):
    """Task isolation cannot be used here (no git, or one older than 2.38)."""


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in _REPOSITORY_VARIABLES}
    env.update(
        LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_LFS_SKIP_SMUDGE="1", GIT_OPTIONAL_LOCKS="0",
        GIT_AUTHOR_NAME="paicli", GIT_AUTHOR_EMAIL="paicli@localhost",
        GIT_COMMITTER_NAME="paicli", GIT_COMMITTER_EMAIL="paicli@localhost",
    )
    if extra:
        env.update(extra)
    return env


class Git:
    """One way of calling git: a repository (``git_dir``), optionally a work
    tree and an index of its own, or just a directory to run in (``cwd``)."""

    def __init__(
        self, *, git_dir: Path | None = None, work_tree: Path | None = None, index: Path | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.git_dir = git_dir
        self.work_tree = work_tree
        self.index = index
        self.cwd = cwd or work_tree or git_dir

    def with_index(self, index: Path) -> "Git":
        return Git(git_dir=self.git_dir, work_tree=self.work_tree, index=index, cwd=self.cwd)

    def run_bytes(self, *args: str, input: bytes | None = None, ok: tuple[int, ...] = (0,)) -> tuple[int, bytes]:
        extra: dict[str, str] = {}
        if self.git_dir is not None:
            extra["GIT_DIR"] = str(self.git_dir)
        if self.work_tree is not None:
            extra["GIT_WORK_TREE"] = str(self.work_tree)
        if self.index is not None:
            extra["GIT_INDEX_FILE"] = str(self.index)
        try:
            done = subprocess.run(
                ["git", *_CONFIG, *args], input=input, capture_output=True, cwd=self.cwd, env=clean_env(extra),
                check=False,
            )
        except FileNotFoundError:
            raise IsolationUnavailable("git is not installed") from None
        if done.returncode not in ok:
            message = done.stderr.decode(errors="replace").strip().splitlines()
            raise GitError(f"git {args[0]} failed: {message[-1] if message else f'exit {done.returncode}'}")
        return done.returncode, done.stdout

    def run(self, *args: str, input: bytes | None = None) -> str:
        return self.run_bytes(*args, input=input)[1].decode(errors="replace").strip()


def version() -> tuple[int, int]:
    text = Git(cwd=Path.cwd()).run("version")
    found = re.search(r"(\d+)\.(\d+)", text)
    if found is None:
        raise IsolationUnavailable(f"cannot read the git version from {text!r}")
    return int(found.group(1)), int(found.group(2))


def require_version() -> None:
    have = version()
    if have < MIN_VERSION:
        raise IsolationUnavailable(
            f"git {have[0]}.{have[1]} is too old for task isolation (needs {MIN_VERSION[0]}.{MIN_VERSION[1]})")
