"""read_file, write_file, edit_file, list_dir, glob_files and the workspace
sandbox, on real files in a temporary workspace."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext
from paicli_tui.tools.files import READ_CAP_BYTES
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.tools.trusted_urls import TrustedUrls


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("line one\nline two\nline three\n")
    return root


@pytest.fixture
def registry(workspace: Path) -> ToolRegistry:
    return ToolRegistry(workspace, Settings())


def run(registry: ToolRegistry, tool: str, **args):
    ctx = ToolContext("tester", threading.Event(), TrustedUrls(), AutoApprover())
    return registry.execute(ToolCall("c1", tool, json.dumps(args)), ctx)


def test_read_file_whole_and_range(registry):
    whole = run(registry, "read_file", path="src/app.py")
    assert whole.ok and whole.content == "line one\nline two\nline three\n"
    assert whole.summary == "read 3 lines of src/app.py"
    ranged = run(registry, "read_file", path="src/app.py", start_line=2, end_line=3, line_numbers=True)
    assert ranged.content == "2\tline two\n3\tline three\n"


def test_read_file_past_end_and_reversed_range(registry):
    assert "past the end" in run(registry, "read_file", path="src/app.py", start_line=9).content
    reversed_range = run(registry, "read_file", path="src/app.py", start_line=3, end_line=2)
    assert not reversed_range.ok and "before start_line" in reversed_range.content


def test_read_file_refuses_binary_and_missing(registry, workspace):
    (workspace / "blob.bin").write_bytes(b"\x89PNG\x00\x01\x02")
    binary = run(registry, "read_file", path="blob.bin")
    assert not binary.ok and "binary" in binary.content
    missing = run(registry, "read_file", path="nope.txt")
    assert not missing.ok and "nope.txt does not exist" in missing.content


def test_read_file_caps_large_files_with_a_note(registry, workspace):
    line = "x" * 99 + "\n"
    (workspace / "big.txt").write_text(line * (READ_CAP_BYTES // 100 + 500))
    result = run(registry, "read_file", path="big.txt")
    assert result.ok
    assert "[truncated at 256 KB" in result.content
    assert len(result.content.encode()) < READ_CAP_BYTES + 200
    shown = result.content.count(line)
    follow = run(registry, "read_file", path="big.txt", start_line=shown + 1)
    assert follow.ok and follow.content.count(line) == 500 + (READ_CAP_BYTES // 100) - shown


def test_write_file_creates_parents_atomically(registry, workspace):
    result = run(registry, "write_file", path="new/deep/file.txt", content="hello\n")
    assert result.ok, result.content
    assert (workspace / "new" / "deep" / "file.txt").read_text() == "hello\n"
    overwrite = run(registry, "write_file", path="new/deep/file.txt", content="bye\n")
    assert overwrite.ok and "overwrote" in overwrite.content
    leftovers = [p.name for p in (workspace / "new" / "deep").iterdir()]
    assert leftovers == ["file.txt"]


def test_write_file_keeps_the_file_mode(registry, workspace):
    script = workspace / "run.sh"
    script.write_text("echo 1\n")
    script.chmod(0o755)
    assert run(registry, "write_file", path="run.sh", content="echo 2\n").ok
    assert script.stat().st_mode & 0o777 == 0o755


def test_edit_file_requires_exactly_one_occurrence(registry, workspace):
    target = workspace / "src" / "app.py"
    none = run(registry, "edit_file", path="src/app.py", old_string="line four", new_string="x")
    assert not none.ok and "occurs 0 times" in none.content
    two = run(registry, "edit_file", path="src/app.py", old_string="line t", new_string="x")
    assert not two.ok and "occurs 2 times" in two.content
    assert target.read_text() == "line one\nline two\nline three\n"
    one = run(registry, "edit_file", path="src/app.py", old_string="line two", new_string="line 2")
    assert one.ok and "line 2" in one.content
    assert target.read_text() == "line one\nline 2\nline three\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["app.py"]


@pytest.mark.parametrize("path", ["../outside.txt", "src/../../outside.txt", "/etc/passwd", "~/x"])
def test_paths_outside_the_workspace_are_refused(registry, workspace, path):
    for tool, extra in (("read_file", {}), ("write_file", {"content": "x"}), ("list_dir", {})):
        result = run(registry, tool, path=path, **extra)
        assert not result.ok
        assert result.content.startswith("refused:") and repr(path) in result.content
    assert not (workspace.parent / "outside.txt").exists()


def test_symlinks_pointing_out_are_refused_for_reads_and_writes(registry, workspace, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    (workspace / "link.txt").symlink_to(secret)
    (workspace / "dirlink").symlink_to(tmp_path)
    (workspace / "dangling").symlink_to(tmp_path / "not-yet.txt")
    read = run(registry, "read_file", path="link.txt")
    assert not read.ok and "symlink" in read.content and "top secret" not in read.content
    assert not run(registry, "read_file", path="dirlink/secret.txt").ok
    write = run(registry, "write_file", path="dangling", content="pwned")
    assert not write.ok and "symlink" in write.content
    assert not (tmp_path / "not-yet.txt").exists()
    edit = run(registry, "edit_file", path="link.txt", old_string="top", new_string="no")
    assert not edit.ok and secret.read_text() == "top secret\n"


def test_symlink_inside_the_workspace_is_followed_and_kept(registry, workspace):
    (workspace / "alias.py").symlink_to(workspace / "src" / "app.py")
    assert run(registry, "write_file", path="alias.py", content="new\n").ok
    assert (workspace / "alias.py").is_symlink()
    assert (workspace / "src" / "app.py").read_text() == "new\n"


def test_list_dir(registry, workspace):
    (workspace / "README.md").write_text("hi")
    result = run(registry, "list_dir")
    assert result.ok
    assert result.content.splitlines() == ["src/", "README.md  2"]
    assert "not a directory" in run(registry, "list_dir", path="README.md").content


def test_glob_files_matches_paths_and_skips_virtualenvs(registry, workspace):
    (workspace / "src" / "pkg").mkdir()
    (workspace / "src" / "pkg" / "mod.py").write_text("")
    (workspace / "top.py").write_text("")
    env = workspace / "env"
    (env / "lib").mkdir(parents=True)
    (env / "pyvenv.cfg").write_text("home = /usr\n")
    (env / "lib" / "site.py").write_text("")
    (workspace / "node_modules" / "m").mkdir(parents=True)
    (workspace / "node_modules" / "m" / "x.py").write_text("")
    result = run(registry, "glob_files", pattern="**/*.py")
    assert result.content.splitlines() == ["src/app.py", "src/pkg/mod.py", "top.py"]
    assert run(registry, "glob_files", pattern="*.py").content == "top.py"
    assert run(registry, "glob_files", pattern="src/*/*.py").content == "src/pkg/mod.py"
    assert not run(registry, "glob_files", pattern="../*").ok


def test_write_refuses_a_directory_target(registry, workspace):
    result = run(registry, "write_file", path="src", content="x")
    assert not result.ok and "src is a directory" in result.content
    assert (workspace / "src").is_dir()


def test_workspace_given_through_a_symlink(tmp_path, workspace):
    alias = tmp_path / "alias-ws"
    os.symlink(workspace, alias)
    registry = ToolRegistry(alias, Settings())
    assert run(registry, "read_file", path="src/app.py").ok
    assert run(registry, "read_file", path=str(workspace / "src" / "app.py")).ok
