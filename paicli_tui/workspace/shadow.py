"""The private shadow repository every task tree of a workspace belongs to.

One bare repository per workspace under the data directory, for git and
non-git workspaces alike. For a git workspace it borrows the person's
objects read-only through ``objects/info/alternates`` and never writes to
the person's ``.git``: task trees, refs, objects and indexes all live here,
so an agent's ``git stash`` or ``git branch`` inside a task tree cannot
reach the person's refs (worktrees of the person's own repository would
share them)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from paicli_tui.workspace.git import Git, GitError

#: Never part of a task's base in a workspace without git: what a person
#: would not want copied into every task tree.
DEFAULT_EXCLUDES = (".git/", ".venv/", "venv/", "node_modules/", ".paicli/")
#: Caches a task's commands leave behind (running Python or pytest in a task
#: tree writes them); never merged back, in any workspace. A file already
#: tracked by the person stays tracked: excludes only hide untracked files.
#: In the shadow's root: the workspace's path.
WORKSPACE_FILE = "workspace"
CACHE_EXCLUDES = ("__pycache__/", "*.pyc", ".pytest_cache/", ".mypy_cache/", ".ruff_cache/")


@dataclass(frozen=True)
class PersonRepo:
    """The person's git repository when the workspace is its top level."""

    git_dir: Path  # this work tree's own git dir (its index lives here)
    common_dir: Path  # objects, refs and info/ (differs in a linked worktree)


def find_person_repo(workspace: Path) -> PersonRepo | None:
    """The repository whose top level is ``workspace``; None when there is
    none (a subdirectory of a repository is treated as a plain directory:
    its parent's ignore rules and index would not line up with it)."""
    try:
        lines = Git(cwd=workspace).run(
            "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir").splitlines()
    except GitError:
        return None
    if len(lines) != 3 or Path(lines[0]).resolve() != workspace.resolve():
        return None
    return PersonRepo(Path(lines[1]), Path(lines[2]))


@dataclass
class ShadowRepo:
    workspace: Path
    git_dir: Path
    person: PersonRepo | None
    #: Serialises ref updates and the worktree list of this process.
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    @classmethod
    def open(cls, workspace: Path, root: Path) -> "ShadowRepo":
        """Create or reopen the shadow repository in ``root`` for ``workspace``."""
        workspace = workspace.resolve()
        git_dir = root / "repo.git"
        person = find_person_repo(workspace)
        if not (git_dir / "HEAD").exists():
            git_dir.parent.mkdir(parents=True, exist_ok=True)
            Git(cwd=git_dir.parent).run("init", "-q", "--bare", str(git_dir))
        repo = cls(workspace, git_dir, person)
        repo._configure()
        # Which workspace this is for: its trees are removed once it is gone.
        (root / WORKSPACE_FILE).write_text(str(workspace))
        return repo

    @property
    def kind(self) -> str:
        return "git" if self.person is not None else "shadow"

    def _configure(self) -> None:
        git = self.git()
        for key, value in (("gc.auto", "0"), ("core.quotePath", "off"), ("user.name", "paicli"),
                           ("user.email", "paicli@localhost"), ("core.bare", "true")):
            git.run("config", key, value)
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        alternates = self.git_dir / "objects" / "info" / "alternates"
        alternates.parent.mkdir(parents=True, exist_ok=True)
        excludes = ["# written by paicli on every open", *CACHE_EXCLUDES]
        if self.person is not None:
            # Rewritten on each open: the person's .git may have moved.
            alternates.write_text(f"{self.person.common_dir / 'objects'}\n")
            theirs = self.person.common_dir / "info" / "exclude"
            if theirs.is_file():
                excludes.append(theirs.read_text(errors="replace"))
        else:
            alternates.unlink(missing_ok=True)
            excludes.extend(DEFAULT_EXCLUDES)
        (info / "exclude").write_text("\n".join(excludes) + "\n")

    def git(self, *, work_tree: Path | None = None, index: Path | None = None) -> Git:
        return Git(git_dir=self.git_dir, work_tree=work_tree, index=index)

    def person_head(self) -> str | None:
        """The commit the person's HEAD names; None when unborn or no git."""
        if self.person is None:
            return None
        try:
            return Git(cwd=self.workspace).run("rev-parse", "-q", "--verify", "HEAD^{commit}") or None
        except GitError:
            return None

    def update_ref(self, ref: str, new: str, old: str | None = None) -> None:
        """Compare-and-swap: fails when ``ref`` no longer holds ``old``."""
        args = ["update-ref", ref, new] + ([old] if old is not None else [])
        self.git().run(*args)

    def resolve(self, ref: str) -> str | None:
        try:
            return self.git().run("rev-parse", "-q", "--verify", f"{ref}^{{commit}}") or None
        except GitError:
            return None
