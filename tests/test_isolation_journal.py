"""A task tree's write journal: while only the file tools wrote, a commit
stages just their files and a recycle removes just them; a command, a check
or a path through a symbolic link makes the next commit and recycle walk the
whole tree. Real git, real tools through the registry bound to the tree."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.config.settings import Settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext
from paicli_tui.tools.trusted_urls import TrustedUrls
from paicli_tui.workspace import IsolatedRun
from paicli_tui.workspace.run import Attempt
from tests.support.gitrepo import CALC, make_git_workspace, make_plain_workspace


@pytest.fixture(params=["git", "plain"])
def workspace(request, tmp_path) -> Path:
    maker = make_git_workspace if request.param == "git" else make_plain_workspace
    return maker(tmp_path / "ws")


@pytest.fixture
def run(workspace, tmp_path):
    run = IsolatedRun.begin_run(workspace, "run-1", tmp_path / "isolation")
    yield run
    run.close()


def tools(workspace: Path, attempt: Attempt) -> ToolRegistry:
    registry = ToolRegistry(workspace, Settings(provider="custom", base_url="http://x.invalid/v1", model="m"))
    return registry.for_root(attempt.path, attempt.journal)


def call(view: ToolRegistry, name: str, **arguments) -> None:
    ctx = ToolContext("worker-1", threading.Event(), TrustedUrls(), AutoApprover(), approval_mode="auto")
    result = view.execute(ToolCall("c1", name, json.dumps(arguments)), ctx)
    assert result.ok, result.content


def files_of(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but git's own, with its bytes; empty folders as ``None``."""
    found: dict[str, bytes] = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        relative = os.path.relpath(folder, root)
        if not dirs and not names and relative != ".":
            found[relative + "/"] = None
        for name in names:
            if relative == "." and name == ".git":
                continue
            found[os.path.normpath(os.path.join(relative, name))] = (Path(folder) / name).read_bytes()
    return found


def files_at(run: IsolatedRun, commit: str) -> dict[str, bytes]:
    git = run.repo.git()
    return {path: git.run_bytes("show", f"{commit}:{path}")[1]
            for path in git.run("ls-tree", "-r", "--name-only", commit).splitlines()}


def test_files_written_by_the_file_tools_are_committed_from_the_journal(workspace, run):
    attempt = run.attempt("task_1", "worker-1")
    view = tools(workspace, attempt)
    call(view, "write_file", path="pkg/deep/new module.py", content="x = 1\n")
    call(view, "edit_file", path="src/calc.py", old_string="a + b", new_string="a + b + 0")
    assert attempt.journal.known and attempt.journal.paths() == ["pkg/deep/new module.py", "src/calc.py"]
    merged = run.merge(attempt, run.commit(attempt))
    after = files_at(run, merged.merge)
    assert after["pkg/deep/new module.py"] == b"x = 1\n"
    assert after["src/calc.py"] == CALC.replace("a + b", "a + b + 0").encode()
    assert set(after) == set(files_at(run, run.start)) | {"pkg/deep/new module.py"}


def test_a_file_a_command_wrote_is_still_captured(workspace, run):
    attempt = run.attempt("task_1", "worker-1")
    view = tools(workspace, attempt)
    call(view, "write_file", path="by_tool.txt", content="tool\n")
    call(view, "execute_command", command="mkdir -p gen && echo command > gen/by_command.txt && rm README.md")
    assert not attempt.journal.known
    after = files_at(run, run.merge(attempt, run.commit(attempt)).merge)
    assert after["by_tool.txt"] == b"tool\n" and after["gen/by_command.txt"] == b"command\n"
    assert "README.md" not in after


def test_a_plan_check_in_the_tree_makes_the_journal_unknown(workspace, run):
    attempt = run.attempt("task_1", "worker-1")
    view = tools(workspace, attempt)
    view.run_check("echo checked > checked.txt", threading.Event())
    assert not attempt.journal.known
    assert files_at(run, run.commit(attempt))["checked.txt"] == b"checked\n"


def test_a_write_through_a_symbolic_link_or_into_git_makes_the_journal_unknown(workspace, run):
    attempt = run.attempt("task_1", "worker-1")
    tools(workspace, attempt)
    (attempt.path / "alias").symlink_to("src")  # as if the tree held a link to a folder
    attempt.journal.wrote(["src/calc.py", str(attempt.path.parent / "elsewhere.txt")])  # outside: not the tree's
    assert attempt.journal.known and attempt.journal.paths() == ["src/calc.py"]
    attempt.journal.wrote(["alias/calc.py"])
    assert not attempt.journal.known
    again = run.attempt("task_1", "worker-1")
    tools(workspace, again)
    other_name = again.path.parent / "another-name"
    other_name.symlink_to(again.path)
    again.journal.wrote([str(other_name / "src" / "calc.py")])  # the tree itself, by another name
    assert not again.journal.known
    other_name.unlink()
    second = run.attempt("task_1", "worker-1")
    assert not (second.path / "alias").exists()  # the recycles cleaned the whole tree
    tools(workspace, second)
    second.journal.wrote([".git/config"])
    assert not second.journal.known


@pytest.mark.parametrize("committed", [True, False], ids=["rejected after its commit", "never committed"])
def test_a_tree_recycled_from_its_journal_ends_byte_identical_to_the_new_base(workspace, run, committed):
    first = run.attempt("task_1", "worker-1")
    view = tools(workspace, first)
    call(view, "write_file", path="a/b/c/new.txt", content="rejected\n")
    call(view, "write_file", path="src/extra.py", content="rejected\n")
    call(view, "edit_file", path="src/calc.py", old_string="a - b", new_string="a - b - 1")
    if committed:
        run.commit(first)  # the reviewer rejects it: nothing is merged
    # Meanwhile another task changes the integration state: it deletes a
    # file, adds one, and leaves an ignored one that must not travel.
    other = run.attempt("task_2", "worker-2")
    (other.path / "notes.txt").unlink()
    (other.path / "src" / "added.py").write_text("added\n")
    (other.path / "other.log").write_text("ignored\n")
    assert run.merge(other, run.commit(other)).status == "merged"
    assert first.journal.known
    second = run.attempt("task_1", "worker-1")
    assert second.path == first.path
    assert files_of(second.path) == files_at(run, run.head)
    assert second.journal is not first.journal
    assert not files_of(second.path).keys() & {"a/b/c/new.txt", "src/extra.py", "a/"}


def test_an_ignored_file_written_by_a_tool_is_left_out_and_cleaned_away(tmp_path):
    workspace = make_git_workspace(tmp_path / "ws")
    run = IsolatedRun.begin_run(workspace, "run-1", tmp_path / "isolation")
    try:
        attempt = run.attempt("task_1", "worker-1")
        view = tools(workspace, attempt)
        call(view, "write_file", path="trace.log", content="ignored\n")
        call(view, "write_file", path="kept.txt", content="kept\n")
        after = files_at(run, run.merge(attempt, run.commit(attempt)).merge)
        assert "kept.txt" in after and "trace.log" not in after
        assert not attempt.journal.known  # the staging fell back to the walk
        again = run.attempt("task_2", "worker-1")
        assert files_of(again.path) == files_at(run, run.head)
    finally:
        run.close()


def test_a_read_only_task_commits_its_base(workspace, run):
    attempt = run.attempt("task_1", "worker-1")
    view = tools(workspace, attempt)
    call(view, "read_file", path="src/calc.py")
    call(view, "list_dir", path=".")
    assert attempt.journal.known and attempt.journal.paths() == []
    assert run.commit(attempt) == attempt.base


def test_a_write_from_a_turn_that_outlived_its_attempt_makes_the_next_attempt_walk(workspace, run):
    first = run.attempt("task_1", "worker-1")
    stale = tools(workspace, first)
    second = run.attempt("task_1", "worker-1")
    tools(workspace, second)
    assert second.journal.known
    call(stale, "write_file", path="late.txt", content="written after its attempt ended\n")
    assert not second.journal.known and first.journal.known
    third = run.attempt("task_1", "worker-1")
    assert not (third.path / "late.txt").exists()
