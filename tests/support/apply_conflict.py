"""A run whose result conflicts with an edit the person made during it, over
real git: the run changes ``a + b`` to ``a + b + 0`` in src/calc.py while the
person changes it to ``b + a``."""

from __future__ import annotations

from pathlib import Path

from paicli_tui.workspace import IsolatedRun
from paicli_tui.workspace.merge import MergeOutcome, merge
from paicli_tui.workspace.snapshot import snapshot
from tests.support.gitrepo import CALC, make_git_workspace

RUNS = CALC.replace("a + b", "a + b + 0")
MINE = CALC.replace("a + b", "b + a  # mine")


def run_with_an_edit_during_it(tmp_path: Path) -> tuple[Path, IsolatedRun]:
    workspace = make_git_workspace(tmp_path / "ws")
    run = IsolatedRun.begin_run(workspace, "run-1", tmp_path / "isolation")
    attempt = run.attempt("task_1", "w1")
    (attempt.path / "src" / "calc.py").write_text(RUNS)
    (attempt.path / "other.py").write_text("print('the run also wrote this')\n")
    assert run.merge(attempt, run.commit(attempt)).status == "merged"
    (workspace / "src" / "calc.py").write_text(MINE)
    return workspace, run


def apply_outcome(run: IsolatedRun) -> MergeOutcome:
    """The conflict the apply will find (for the dialog's tests)."""
    now = snapshot(run.repo, parent=run.start)
    return merge(run.repo, now, run.head, ours_label="workspace", theirs_label="run")
