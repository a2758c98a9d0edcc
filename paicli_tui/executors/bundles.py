"""A task's tree as git objects on the way out and back: a bundle of the
commit a turn starts from, and a thin bundle of what it made on top."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from paicli_tui.workspace.git import Git

if TYPE_CHECKING:
    from paicli_tui.workspace.run import Attempt, IsolatedRun

#: The one ref a bundle carries, on both sides.
SHIPPED = "refs/paicli/shipped"
#: Author of a remote turn's commit (its files are what counts; see TaskTrees.commit).
_MESSAGE = "paicli: a remote turn"


def tree_state(run: "IsolatedRun", tree: "Attempt") -> str:
    """The tree's files as they are now, as a commit (``tree.base`` when unchanged)."""
    commit, _ = run.trees.commit(tree.path, tree.base, f"paicli {run.run_id}: {tree.task_id} before a remote turn",
                                 base_tree=tree.base_tree)
    return commit


def pack(git: Git, commit: str, prerequisite: str | None = None) -> bytes:
    """A bundle whose one ref (SHIPPED) is ``commit``; with ``prerequisite``
    only the objects after it (the other side has it already)."""
    with tempfile.TemporaryDirectory(prefix="paicli-bundle-") as scratch:
        path = Path(scratch) / "turn.bundle"
        git.run("update-ref", SHIPPED, commit)
        spec = [SHIPPED] if prerequisite is None else [f"^{prerequisite}", SHIPPED]
        git.run("bundle", "create", "-q", str(path), *spec)
        return path.read_bytes()


def unpack(git: Git, data: bytes, ref: str) -> str:
    """Fetch a bundle's SHIPPED into ``ref``; returns the commit."""
    with tempfile.TemporaryDirectory(prefix="paicli-bundle-") as scratch:
        path = Path(scratch) / "turn.bundle"
        path.write_bytes(data)
        git.run("fetch", "-q", "--no-tags", str(path), f"+{SHIPPED}:{ref}")
    return git.run("rev-parse", f"{ref}^{{commit}}")


def take_result(run: "IsolatedRun", tree: "Attempt", data: bytes | None, result: str) -> None:
    """Bring a remote turn's result commit into the shadow repository and
    make the task's tree hold its files, so the merge, the reviewer's diff
    and the next turn see them as if the turn had run here."""
    if data is not None:
        unpack(run.repo.git(), data, f"refs/paicli/{run.run_id}/remote/{tree.task_id}/{tree.number}")
    if tree.journal is not None:
        tree.journal.anything()  # the turn's files arrive by git, past the file tools
    tree_git = Git(cwd=tree.path)
    tree_git.run("reset", "-q", "--hard", result)


def scratch_commit(scratch: Path, base: str) -> str:
    """On the remote side: the scratch tree's files as a commit on ``base``."""
    git = Git(cwd=scratch)
    git.run("add", "-A", ".")
    tree = git.run("write-tree")
    if tree == git.run("rev-parse", f"{base}^{{tree}}"):
        return base
    return git.run("commit-tree", tree, "-p", base, "-m", _MESSAGE)


def scratch_checkout(scratch: Path, data: bytes, excludes: str) -> str:
    """On the remote side: a new repository in ``scratch`` holding the
    bundle's commit checked out; returns the commit."""
    git = Git(cwd=scratch)
    git.run("init", "-q", ".")
    (scratch / ".git" / "info").mkdir(parents=True, exist_ok=True)
    (scratch / ".git" / "info" / "exclude").write_text(excludes)
    commit = unpack(git, data, "refs/heads/task")
    git.run("checkout", "-q", "--detach", commit)
    return commit
