"""Isolation for /plan tasks and /team steps: each runs in its own task tree
checked out from a private shadow repository, and its work is merged back
into the run's integration ref with git's own three-way merge
(docs/isolation.md)."""

from paicli_tui.workspace.git import GitError, IsolationUnavailable
from paicli_tui.workspace.merge import ConflictFile, MergeOutcome
from paicli_tui.workspace.run import Attempt, IsolatedRun, MergeResult

__all__ = [
    "Attempt", "ConflictFile", "GitError", "IsolatedRun", "IsolationUnavailable", "MergeOutcome", "MergeResult",
]
