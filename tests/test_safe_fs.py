"""safe_fs on real files: the symlinks it follows itself (inside the
workspace), the ones it refuses, and what it does with odd entries."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from paicli_tui.tools import safe_fs
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext, ToolError
from paicli_tui.tools.files import ReadFile, WriteFile
from paicli_tui.tools.listing import ListDir
from paicli_tui.tools.trusted_urls import TrustedUrls


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("app\n")
    (tmp_path / "secret.txt").write_text("secret\n")
    return root


def read(workspace: Path, raw: str) -> str:
    with safe_fs.open_file(workspace, raw, raw) as handle:
        return handle.read().decode()


def test_relative_symlink_chains_and_dotdot_inside_are_followed(workspace):
    (workspace / "a").symlink_to("b")
    (workspace / "b").symlink_to("src")
    (workspace / "deep" / "er").mkdir(parents=True)
    (workspace / "deep" / "er" / "up").symlink_to("../../src")
    assert read(workspace, "a/app.py") == "app\n"
    assert read(workspace, "deep/er/up/app.py") == "app\n"
    # ".." after a symlink is taken from where the link led, as realpath does
    assert read(workspace, "deep/er/up/../src/app.py") == "app\n"
    assert read(workspace, str(workspace / "a" / "app.py")) == "app\n"


@pytest.mark.parametrize("target", ["../secret.txt", "../ws/../secret.txt", "ABS"])
def test_symlinks_leaving_the_workspace_are_refused_by_the_walk(workspace, target):
    link = workspace / "src" / "leak"
    link.symlink_to(str(workspace.parent / "secret.txt") if target == "ABS" else f"../{target}")
    for call in (lambda: read(workspace, "src/leak"),
                 lambda: safe_fs.replace_file(workspace, "src/leak", "src/leak", b"pwned")):
        with pytest.raises(ToolError, match="resolves outside the workspace through a symlink"):
            call()
    assert (workspace.parent / "secret.txt").read_text() == "secret\n"


def test_a_symlink_loop_is_refused_in_one_line(workspace):
    (workspace / "l1").symlink_to("l2")
    (workspace / "l2").symlink_to("l1")
    with pytest.raises(ToolError, match="too many levels of symlinks"):
        ReadFile(workspace).run({"path": "l1"}, ToolContext("t", threading.Event(), TrustedUrls(), AutoApprover()))


def test_a_fifo_is_refused_without_waiting_for_a_writer(workspace):
    os.mkfifo(workspace / "pipe")
    with pytest.raises(ToolError, match="pipe is not a regular file"):
        read(workspace, "pipe")


def test_a_file_in_the_middle_of_a_path(workspace):
    for call in (lambda: read(workspace, "src/app.py/more"),
                 lambda: safe_fs.replace_file(workspace, "src/app.py/more", "src/app.py/more", b"x")):
        with pytest.raises(NotADirectoryError) as raised:
            call()
        assert raised.value.filename == "app.py"


def test_writing_through_a_dangling_inside_symlink_creates_its_target(workspace):
    (workspace / "alias.txt").symlink_to(workspace / "made" / "real.txt")
    ctx = ToolContext("t", threading.Event(), TrustedUrls(), AutoApprover())
    assert WriteFile(workspace).run({"path": "alias.txt", "content": "hi\n"}, ctx).content.startswith("created")
    assert (workspace / "made" / "real.txt").read_text() == "hi\n"
    assert (workspace / "alias.txt").is_symlink()


def test_new_files_get_the_umask_mode_and_old_files_keep_theirs(workspace):
    umask = os.umask(0o022)
    try:
        assert safe_fs.replace_file(workspace, "new.txt", "new.txt", b"n") is False
    finally:
        os.umask(umask)
    assert stat.S_IMODE((workspace / "new.txt").stat().st_mode) == 0o644
    (workspace / "src" / "app.py").chmod(0o640)
    assert safe_fs.replace_file(workspace, "src/app.py", "src/app.py", b"x") is True
    assert stat.S_IMODE((workspace / "src" / "app.py").stat().st_mode) == 0o640


def test_list_dir_shows_symlinks_without_following_them(workspace, tmp_path):
    (workspace / "out").symlink_to(tmp_path)
    (workspace / "in").symlink_to("src")
    ctx = ToolContext("t", threading.Event(), TrustedUrls(), AutoApprover())
    listing = ListDir(workspace).run({}, ctx).content
    assert listing.splitlines() == ["src/", "in@", "out@"]
    assert ListDir(workspace).run({"path": "in"}, ctx).content == "app.py  4"
    with pytest.raises(ToolError, match="resolves outside the workspace through a symlink"):
        ListDir(workspace).run({"path": "out"}, ctx)
