"""Task isolation with real git in temporary directories: the start snapshot,
task trees, merge-back, conflicts, the apply at the end, and the sweep."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.events import EventBus
from paicli_tui.workspace import IsolatedRun
from paicli_tui.workspace.apply import apply_run
from paicli_tui.workspace.lifecycle import begin_isolation, isolation_root, prepare_trees, sweep_gone_workspaces
from paicli_tui.workspace.merge import OURS, THEIRS
from paicli_tui.workspace.trees import OWNER_FILE, POOL_SIZE, process_start, sweep
from tests.support.gitrepo import CALC, git, make_git_workspace, make_plain_workspace, person_state


@pytest.fixture(params=["git", "plain"])
def workspace(request, tmp_path) -> Path:
    maker = make_git_workspace if request.param == "git" else make_plain_workspace
    return maker(tmp_path / "ws")


def start(workspace: Path, tmp_path: Path, run_id: str = "run-1", bus: EventBus | None = None) -> IsolatedRun:
    return IsolatedRun.begin_run(workspace, run_id, tmp_path / "isolation", bus=bus)


def files_at(run: IsolatedRun, commit: str) -> set[str]:
    return set(run.repo.git().run("ls-tree", "-r", "--name-only", commit).splitlines())


def show(run: IsolatedRun, commit: str, path: str) -> str:
    return run.repo.git().run_bytes("show", f"{commit}:{path}")[1].decode()


def test_the_start_state_holds_uncommitted_and_untracked_files_but_not_ignored_ones(workspace, tmp_path):
    run = start(workspace, tmp_path)
    files = files_at(run, run.start)
    assert {"src/calc.py", "README.md", "notes.txt"} <= files
    assert "uncommitted line" in show(run, run.start, "README.md")
    assert not files & {"run.log", "build/out.bin", "node_modules/dep.js"}


def test_the_persons_repository_is_never_touched(tmp_path):
    ws = make_git_workspace(tmp_path / "ws")
    before = person_state(ws)
    run = start(ws, tmp_path)
    attempt = run.attempt("task_1", "worker-1")
    (attempt.path / "src" / "calc.py").write_text("changed\n")
    # An agent's own git use inside its tree stays in the shadow repository.
    subprocess.run(["git", "stash"], cwd=attempt.path, capture_output=True, check=True)
    subprocess.run(["git", "branch", "agent-branch"], cwd=attempt.path, capture_output=True, check=True)
    run.merge(attempt, run.commit(attempt))
    run.close()
    assert person_state(ws) == before
    # The snapshot's parent is the person's HEAD, so history reads as theirs.
    assert run.repo.git().run("rev-parse", f"{run.start}^") == git(ws, "rev-parse", "HEAD")


def test_two_tasks_changing_different_files_both_land(workspace, tmp_path):
    run = start(workspace, tmp_path)
    first, second = run.attempt("task_1", "w1"), run.attempt("task_2", "w2")
    assert first.path != second.path
    (first.path / "a.txt").write_text("from task 1\n")
    (second.path / "b.txt").write_text("from task 2\n")
    assert not (first.path / "b.txt").exists()  # never a sibling's half-done work
    assert run.merge(first, run.commit(first)).status == "merged"
    assert run.merge(second, run.commit(second)).status == "merged"
    assert {"a.txt", "b.txt"} <= files_at(run, run.head)


def test_a_dependent_starts_from_its_dependencys_merged_work(workspace, tmp_path):
    run = start(workspace, tmp_path)
    first = run.attempt("task_1", "w1")
    (first.path / "src" / "util.py").write_text("X = 1\n")
    run.merge(first, run.commit(first))
    dependent = run.attempt("task_2", "w1")
    assert (dependent.path / "src" / "util.py").read_text() == "X = 1\n"


def test_an_attempt_that_changed_nothing_merges_nothing(workspace, tmp_path):
    run = start(workspace, tmp_path)
    attempt = run.attempt("task_1", "w1")
    result = run.commit(attempt)
    assert result == attempt.base
    assert run.merge(attempt, result).status == "empty"
    assert run.head == run.start


def test_a_retry_starts_from_a_clean_tree(workspace, tmp_path):
    run = start(workspace, tmp_path)
    first = run.attempt("task_1", "w1")
    (first.path / "src" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (first.path / "scratch.log").write_text("ignored leftovers go too\n")
    run.commit(first)  # rejected: never merged
    retry = run.attempt("task_1", "w1")
    assert retry.number == 2 and retry.path == first.path
    assert (retry.path / "src" / "calc.py").read_text() == CALC
    assert not (retry.path / "scratch.log").exists()


def conflicting_pair(run: IsolatedRun):
    first, second = run.attempt("task_1", "w1"), run.attempt("task_2", "w2")
    (first.path / "src" / "calc.py").write_text(CALC.replace("a + b", "a + b + 0"))
    (second.path / "src" / "calc.py").write_text(CALC.replace("a + b", "b + a"))
    assert run.merge(first, run.commit(first)).status == "merged"
    return second, run.merge(second, run.commit(second))


def test_the_same_lines_changed_twice_are_a_conflict_with_files_and_hunks(workspace, tmp_path):
    bus = EventBus("s")
    seen = []
    bus.subscribe(seen.append)
    run = start(workspace, tmp_path, bus=bus)
    second, result = conflicting_pair(run)
    assert result.status == "conflict"
    (conflict,) = result.outcome.conflicts
    assert conflict.path == "src/calc.py"
    (hunk,) = conflict.hunks()
    assert "<<<<<<< integration" in hunk and ">>>>>>> task_2" in hunk
    assert "return a + b + 0" in hunk and "return b + a" in hunk
    assert "def add(a, b):" in hunk  # context
    assert [e.name for e in seen if e.name in ("task_merged", "merge_conflict")] == ["task_merged", "merge_conflict"]


@pytest.mark.parametrize("choice, expected", [(THEIRS, "b + a"), (OURS, "a + b + 0")])
def test_keeping_one_side_settles_the_conflict(workspace, tmp_path, choice, expected):
    run = start(workspace, tmp_path)
    second, result = conflicting_pair(run)
    merged = run.settle(second, result, {"src/calc.py": choice})
    assert merged.status == "merged" and run.head == merged.merge
    assert f"return {expected}\n" in show(run, run.head, "src/calc.py")
    assert "<<<<<<<" not in show(run, run.head, "src/calc.py")


def test_an_edited_file_settles_the_conflict(workspace, tmp_path):
    run = start(workspace, tmp_path)
    second, result = conflicting_pair(run)
    run.settle(second, result, {"src/calc.py": b"def add(a, b):\n    return sum((a, b))\n"})
    assert show(run, run.head, "src/calc.py") == "def add(a, b):\n    return sum((a, b))\n"


def test_a_rerun_on_the_current_integration_state_merges_cleanly(workspace, tmp_path):
    run = start(workspace, tmp_path)
    second, result = conflicting_pair(run)
    run.decided(second, "rerun", ("src/calc.py",))
    rerun = run.attempt("task_2", "w2")
    assert "a + b + 0" in (rerun.path / "src" / "calc.py").read_text()
    (rerun.path / "src" / "calc.py").write_text(CALC.replace("a + b", "b + a + 0"))
    assert run.merge(rerun, run.commit(rerun)).status == "merged"


def test_modify_delete_is_a_conflict_without_markers(workspace, tmp_path):
    run = start(workspace, tmp_path)
    first, second = run.attempt("task_1", "w1"), run.attempt("task_2", "w2")
    (first.path / "src" / "calc.py").unlink()
    (second.path / "src" / "calc.py").write_text(CALC + "\n# more\n")
    run.merge(first, run.commit(first))
    result = run.merge(second, run.commit(second))
    (conflict,) = result.outcome.conflicts
    assert conflict.marked == "" and conflict.ours is None and "delete" in conflict.message.lower()
    run.settle(second, result, {"src/calc.py": None})
    assert "src/calc.py" not in files_at(run, run.head)


def test_the_review_diff_shows_the_change_and_is_bounded(workspace, tmp_path):
    run = start(workspace, tmp_path)
    attempt = run.attempt("task_1", "w1")
    (attempt.path / "src" / "calc.py").write_text(CALC.replace("a + b", "a - b"))
    (attempt.path / "big.txt").write_text("".join(f"line {i}\n" for i in range(3000)))
    result = run.commit(attempt)
    full = run.diff(attempt.base, result, limit=10**7)
    assert "-    return a + b" in full and "+    return a - b" in full
    cut = run.diff(attempt.base, result, limit=2000)
    assert len(cut) < 2200 and "[diff cut:" in cut
    assert {(c.path, c.added, c.removed) for c in run.changes(attempt.base, result)} == {
        ("big.txt", 3000, 0), ("src/calc.py", 1, 1)}


def test_apply_writes_the_result_and_keeps_the_persons_edits_made_during_the_run(workspace, tmp_path):
    run = start(workspace, tmp_path)
    attempt = run.attempt("task_1", "w1")
    (attempt.path / "src" / "calc.py").write_text(CALC.replace("a - b", "a - b  # checked"))
    (attempt.path / "new.py").write_text("print('new')\n")
    (attempt.path / "notes.txt").unlink()
    run.merge(attempt, run.commit(attempt))
    # The person edits the workspace while the run goes on.
    (workspace / "README.md").write_text("# calc\n\nthe person's line\n")
    (workspace / "mine.txt").write_text("mine\n")
    recorded = []
    report = apply_run(run, "tree", recording=lambda paths, task: _Recording(recorded, paths, task))
    assert recorded == [("task_1", sorted(["src/calc.py", "new.py", "notes.txt"]))]
    assert "# checked" in (workspace / "src" / "calc.py").read_text()
    assert (workspace / "new.py").read_text() == "print('new')\n"
    assert not (workspace / "notes.txt").exists()
    assert (workspace / "README.md").read_text() == "# calc\n\nthe person's line\n"
    assert (workspace / "mine.txt").read_text() == "mine\n"
    assert report.kept == ()


def test_apply_writes_merge_by_merge_so_each_task_can_be_undone_alone(workspace, tmp_path):
    run = start(workspace, tmp_path)
    for task in ("task_1", "task_2"):
        attempt = run.attempt(task, "w1")
        (attempt.path / f"{task}.txt").write_text(task)
        (attempt.path / "shared.txt").write_text(f"last written by {task}\n")
        merged = run.merge(attempt, run.commit(attempt))
        assert merged.status == "merged", merged
    recorded = []
    apply_run(run, "tree", recording=lambda paths, task: _Recording(recorded, paths, task))
    assert recorded == [("task_1", ["shared.txt", "task_1.txt"]), ("task_2", ["shared.txt", "task_2.txt"])]
    assert (workspace / "shared.txt").read_text() == "last written by task_2\n"


def test_apply_never_overwrites_a_conflicting_edit_of_the_person(workspace, tmp_path):
    run = start(workspace, tmp_path)
    attempt = run.attempt("task_1", "w1")
    (attempt.path / "src" / "calc.py").write_text(CALC.replace("a + b", "a + b + 0"))
    run.merge(attempt, run.commit(attempt))
    (workspace / "src" / "calc.py").write_text(CALC.replace("a + b", "b + a  # the person's"))
    report = apply_run(run, "tree")
    assert [c.path for c in report.kept] == ["src/calc.py"]
    assert "# the person's" in (workspace / "src" / "calc.py").read_text()


def test_apply_branch_leaves_the_tree_alone_and_makes_a_branch(tmp_path):
    ws = make_git_workspace(tmp_path / "ws")
    run = start(ws, tmp_path, run_id="r7")
    attempt = run.attempt("task_1", "w1")
    (attempt.path / "src" / "calc.py").write_text("changed\n")
    run.merge(attempt, run.commit(attempt))
    status = git(ws, "status", "--porcelain")
    report = apply_run(run, "branch")
    assert report.branch == "paicli/r7"
    assert git(ws, "show", "paicli/r7:src/calc.py") == "changed"
    assert git(ws, "status", "--porcelain") == status


def test_apply_branch_without_git_keeps_the_result_in_the_shadow_and_says_so(tmp_path):
    ws = make_plain_workspace(tmp_path / "ws")
    run = start(ws, tmp_path)
    attempt = run.attempt("task_1", "w1")
    (attempt.path / "x.txt").write_text("x\n")
    run.merge(attempt, run.commit(attempt))
    report = apply_run(run, "branch")
    assert report.mode == "none" and "not a git repository" in report.notes[0]
    assert not (ws / "x.txt").exists()


def test_close_keeps_the_trees_warm_for_the_next_run_and_it_finds_them_clean(workspace, tmp_path):
    run = start(workspace, tmp_path)
    attempt = run.attempt("task_1", "w1")
    (attempt.path / "left-behind.txt").write_text("untracked\n")
    (attempt.path / "src" / "calc.py").write_text("broken\n")
    run.close()
    assert attempt.path.is_dir()
    again = start(workspace, tmp_path, "run-2")
    reused = again.attempt("task_1", "w1")
    assert reused.path == attempt.path
    assert not (reused.path / "left-behind.txt").exists()
    assert (reused.path / "src" / "calc.py").read_text() == CALC
    assert git(reused.path, "rev-parse", "HEAD") == again.start


def test_two_live_runs_of_one_workspace_never_share_a_tree(workspace, tmp_path):
    first = start(workspace, tmp_path)
    taken = first.attempt("task_1", "w1").path
    # The other run is another process: its lease is an flock the kernel drops when it exits.
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from paicli_tui.workspace import IsolatedRun\n"
        f"run = IsolatedRun.begin_run(Path({str(workspace)!r}), 'run-2', Path({str(tmp_path / 'isolation')!r}))\n"
        "print(run.attempt('task_1', 'w1').path, flush=True)\n"
        "sys.stdin.readline()\n"
    )
    other = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    try:
        theirs = Path(other.stdout.readline().strip())
        assert theirs.is_dir() and theirs != taken
        first.close()
        third = start(workspace, tmp_path, "run-3")
        assert third.attempt("task_1", "w1").path == taken  # free again, not theirs
    finally:
        other.communicate("\n", timeout=60)
    # The other process is gone: its tree is free for the next run, and kept.
    assert third.attempt("task_2", "w2").path == theirs


def test_trees_over_the_pool_size_are_removed_when_the_run_ends(workspace, tmp_path):
    run = start(workspace, tmp_path)
    paths = [run.attempt(f"task_{n}", f"w{n}").path for n in range(POOL_SIZE + 1)]
    run.close()
    assert all(p.is_dir() for p in paths[:POOL_SIZE]) and not paths[POOL_SIZE].exists()
    assert run.repo.git().run("worktree", "list").count("\n") == POOL_SIZE  # the bare repository + the pool


def test_the_next_start_sweeps_what_a_dead_run_left_over_the_pool_and_says_so(workspace, tmp_path):
    script = (
        "import os\n"
        "from pathlib import Path\n"
        "from paicli_tui.workspace import IsolatedRun\n"
        f"run = IsolatedRun.begin_run(Path({str(workspace)!r}), 'crash', Path({str(tmp_path / 'isolation')!r}))\n"
        f"paths = [run.attempt(f't{{n}}', f'w{{n}}').path for n in range({POOL_SIZE + 1})]\n"
        "os._exit(0)  # a crash: nothing closed\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120,
                   env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    pool = tmp_path / "isolation" / "pool"
    assert (pool / f"tree-{POOL_SIZE}").is_dir()
    live = start(workspace, tmp_path, "run-2")
    assert live.swept == 1 and not (pool / f"tree-{POOL_SIZE}").exists()
    assert (pool / "tree-0").is_dir()  # the warm pool is kept
    assert live.attempt("task_1", "w1").path == pool / "tree-0"


def test_the_next_start_sweeps_a_dead_runs_trees_of_the_old_layout(workspace, tmp_path):
    repo_run = start(workspace, tmp_path)
    left = tmp_path / "isolation" / "trees" / "123-dead"
    left.mkdir(parents=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (left / OWNER_FILE).write_text(json.dumps({"pid": int(dead.stdout), "start": "1"}))
    live_dir = tmp_path / "isolation" / "trees" / "live"
    live_dir.mkdir()
    (live_dir / OWNER_FILE).write_text(json.dumps({"pid": os.getpid(), "start": process_start(os.getpid())}))
    repo_run.close()
    live = start(workspace, tmp_path, "run-2")
    assert live.swept == 1 and not left.exists() and live_dir.exists()
    assert sweep(live.repo, tmp_path / "isolation" / "trees") == []


class _Recording:
    def __init__(self, log: list, paths: list[str], task: str) -> None:
        self.log, self.paths, self.task = log, paths, task

    def __enter__(self):
        self.log.append((self.task, sorted(self.paths)))

    def __exit__(self, *exc):
        return False


def test_warming_never_recycles_a_tree_a_task_already_works_in(workspace, tmp_path):
    run = start(workspace, tmp_path)
    attempt = run.attempt("task_1", "w1")
    (attempt.path / "work.txt").write_text("in progress\n")
    run.trees.warm(["w1", "w2"], run.start).join(timeout=60)
    assert (attempt.path / "work.txt").read_text() == "in progress\n"
    assert run.trees.checkout("w2", run.start).exists()


def test_apply_keeps_a_files_permissions_and_follows_the_executable_bit(workspace, tmp_path):
    os.chmod(workspace / "src" / "calc.py", 0o640)
    run = start(workspace, tmp_path)
    attempt = run.attempt("task_1", "w1")
    (attempt.path / "src" / "calc.py").write_text(CALC + "# more\n")
    (attempt.path / "run.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(attempt.path / "run.sh", 0o755)
    run.merge(attempt, run.commit(attempt))
    apply_run(run, "tree")
    assert oct(os.stat(workspace / "src" / "calc.py").st_mode & 0o777) == oct(0o640)
    assert os.stat(workspace / "run.sh").st_mode & 0o111


def test_a_workspace_that_is_gone_loses_its_shadow_and_warm_trees(tmp_path):
    gone, kept = make_git_workspace(tmp_path / "gone"), make_plain_workspace(tmp_path / "kept")
    isolation = tmp_path / "isolation"
    for ws, key in ((gone, "a"), (kept, "b")):
        run = IsolatedRun.begin_run(ws, "run-1", isolation / key)
        run.attempt("task_1", "w1")
        run.close()
    held = IsolatedRun.begin_run(kept, "run-2", isolation / "b")
    held.attempt("task_1", "w1")
    shutil.rmtree(gone)
    shutil.rmtree(kept)
    # "b" is gone too, but a live run still holds one of its trees.
    assert sweep_gone_workspaces(isolation) == [isolation / "a"]
    assert not (isolation / "a").exists() and (isolation / "b" / "pool" / "tree-0").is_dir()
    held.close()
    assert sweep_gone_workspaces(isolation) == [isolation / "b"]


def test_trees_readied_while_planning_are_moved_to_the_runs_start_with_edits_made_meanwhile(tmp_path):
    ws = make_git_workspace(tmp_path / "ws")
    settings = Settings()
    prepared = prepare_trees(ws, settings, ["worker-1", "worker-2"])
    prepared.thread.join(timeout=120)
    trees = prepared.take()
    assert trees.is_ready("worker-1") and trees.is_ready("worker-2")
    readied = {p for p in (isolation_root(ws) / "pool").iterdir() if p.is_dir()}
    (ws / "notes.md").write_text("written while the plan was reviewed\n")
    run, why = begin_isolation(ws, "run-1", settings, None, ["worker-1", "worker-2"], prepared)
    assert why == "" and run.trees is trees
    attempt = run.attempt("task_1", "worker-1")
    assert attempt.path in readied and len(readied) == 2
    assert (attempt.path / "notes.md").read_text() == "written while the plan was reviewed\n"
    assert git(attempt.path, "rev-parse", "HEAD") == run.start
    run.close()


def test_trees_readied_for_a_plan_that_is_never_run_go_back_to_the_pool(tmp_path):
    ws = make_git_workspace(tmp_path / "ws")
    prepared = prepare_trees(ws, Settings(), ["worker-1"])
    prepared.thread.join(timeout=120)
    prepared.close()
    run, _ = begin_isolation(ws, "run-1", Settings(), None, [])
    assert run.attempt("task_1", "w1").path.name == "tree-0"  # free again, not a new one
    run.close()
