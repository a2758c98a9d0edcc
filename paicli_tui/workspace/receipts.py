"""A task's diff read back after the fact (the run screen's details, `paicli
report`): the shadow repository of a workspace keeps every attempt's commit,
so ``base..result`` is its receipt. Reading never creates or reconfigures the
shadow: a workspace that never ran an isolated task has no diffs to show."""

from __future__ import annotations

import re
from pathlib import Path

from paicli_tui.workspace.diffs import DIFF_LIMIT, diff_text
from paicli_tui.workspace.git import GitError, IsolationUnavailable
from paicli_tui.workspace.lifecycle import isolation_root
from paicli_tui.workspace.shadow import ShadowRepo

_COMMIT = re.compile(r"[0-9a-f]{7,64}")


def task_diff(workspace: Path, base: str, result: str, limit: int = DIFF_LIMIT) -> str | None:
    """The unified diff from ``base`` to ``result`` (cut at ``limit`` with a
    note); None when the shadow or either commit is gone."""
    if not (_COMMIT.fullmatch(base) and _COMMIT.fullmatch(result)):
        return None
    git_dir = isolation_root(workspace) / "repo.git"
    if not (git_dir / "HEAD").is_file():
        return None
    try:
        return diff_text(ShadowRepo(workspace, git_dir, None), base, result, limit)
    except (GitError, IsolationUnavailable, OSError):
        return None
