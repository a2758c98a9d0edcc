"""Taking up an interrupted run's isolation: the same shadow refs, the
merges of the work it keeps, and the files the person changed in the
workspace since the run began (the end of the run merges with them as
``apply`` always does: a file both changed keeps the person's version)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from paicli_tui.workspace.git import GitError, IsolationUnavailable
from paicli_tui.workspace.lifecycle import isolation_root
from paicli_tui.workspace.run import IsolatedRun
from paicli_tui.workspace.snapshot import snapshot, tree_of

if TYPE_CHECKING:
    from paicli_tui.events import EventBus


def resume_isolation(workspace: Path, run_id: str, *, start: str, head: str, merges: list[tuple[str, str]],
                     attempts: Mapping[str, int], bus: "EventBus | None") -> tuple[IsolatedRun | None, str]:
    """The resumed run's isolation, or None and why not (one line)."""
    try:
        run = IsolatedRun.resume_run(workspace, run_id, isolation_root(workspace), start=start, head=head,
                                     merges=merges, attempts=attempts, bus=bus)
    except (IsolationUnavailable, GitError, OSError) as exc:
        return None, f"the run's isolated work cannot be taken up ({exc})"
    return run, ""


def edited_since_start(run: IsolatedRun) -> list[str]:
    """Workspace files that differ from the run's start state and from the
    run's own result: nothing of the run reaches the workspace before its
    end (a file already as the run made it was written by an end the kill
    cut short), so these are the person's."""
    now = snapshot(run.repo, parent=run.start, message=f"paicli {run.run_id}: workspace at resume")
    new = tree_of(run.repo, now)
    if new == tree_of(run.repo, run.start):
        return []
    return sorted(_differing(run, run.start, new) & _differing(run, run.head, new))


def _differing(run: IsolatedRun, old: str, new: str) -> set[str]:
    out = run.repo.git().run("diff-tree", "-r", "--name-only", "--no-renames", tree_of(run.repo, old), new)
    return {path for path in out.splitlines() if path}
