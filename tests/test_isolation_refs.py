"""A run's refs are written off the tasks' path: after a flush they name
what the run did, in order, and a ref that could not be written fails the
apply before any file of the workspace changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli_tui.workspace import IsolatedRun
from paicli_tui.workspace.apply import apply_run
from paicli_tui.workspace.git import GitError
from paicli_tui.workspace.refs import RefWriter
from tests.support.gitrepo import make_git_workspace


def ref(run: IsolatedRun, name: str) -> str | None:
    return run.repo.resolve(name)


def test_after_a_flush_the_refs_name_the_start_every_attempt_and_the_integration_head(tmp_path):
    run = IsolatedRun.begin_run(make_git_workspace(tmp_path / "ws"), "run-1", tmp_path / "isolation")
    try:
        first = run.attempt("task_1", "worker-1")
        (first.path / "a.txt").write_text("rejected\n")
        rejected = run.commit(first)
        second = run.attempt("task_1", "worker-1")
        (second.path / "a.txt").write_text("approved\n")
        approved = run.commit(second)
        merged = run.merge(second, approved)
        run.flush_refs()
        assert ref(run, "refs/paicli/run-1/start") == run.start
        assert ref(run, "refs/paicli/run-1/task/task_1/1") == rejected
        assert ref(run, "refs/paicli/run-1/task/task_1/2") == approved
        assert ref(run, run.integration_ref) == merged.merge == run.head
    finally:
        run.close()


def test_a_chain_of_moves_gathered_into_one_batch_lands_on_the_last(tmp_path):
    run = IsolatedRun.begin_run(make_git_workspace(tmp_path / "ws"), "run-1", tmp_path / "isolation")
    try:
        git = run.repo.git()
        tree = git.run("rev-parse", f"{run.start}^{{tree}}")
        chain = [run.start]
        for number in range(4):
            chain.append(git.run("commit-tree", tree, "-p", chain[-1], "-m", f"step {number}"))
        writer = RefWriter(run.repo, gather_s=5.0)  # everything below lands in one transaction
        writer.write("refs/paicli/chain", chain[0])
        for old, new in zip(chain, chain[1:]):
            writer.write("refs/paicli/chain", new, old)
        writer.flush()
        assert ref(run, "refs/paicli/chain") == chain[-1]
    finally:
        run.close()


def test_an_integration_ref_moved_behind_the_runs_back_fails_the_apply_and_leaves_the_workspace_alone(tmp_path):
    workspace = make_git_workspace(tmp_path / "ws")
    run = IsolatedRun.begin_run(workspace, "run-1", tmp_path / "isolation")
    try:
        run.flush_refs()
        stranger = run.repo.git().run("commit-tree", f"{run.start}^{{tree}}", "-p", run.start, "-m", "not the run's")
        run.repo.update_ref(run.integration_ref, stranger)
        attempt = run.attempt("task_1", "worker-1")
        (attempt.path / "new.txt").write_text("from the task\n")
        run.merge(attempt, run.commit(attempt))
        with pytest.raises(GitError):
            apply_run(run, "tree")
        assert not (workspace / "new.txt").exists()
        assert ref(run, run.integration_ref) == stranger
    finally:
        run.close()


def test_closing_a_run_writes_its_refs(tmp_path: Path):
    run = IsolatedRun.begin_run(make_git_workspace(tmp_path / "ws"), "run-1", tmp_path / "isolation")
    attempt = run.attempt("task_1", "worker-1")
    (attempt.path / "b.txt").write_text("b\n")
    merged = run.merge(attempt, run.commit(attempt))
    run.close()
    assert ref(run, run.integration_ref) == merged.merge
