"""The sandbox under a symlink race (issue 12, class 5): a second process
swaps ``workspace/link`` between a real directory inside the workspace and a
symlink to a directory outside it, as fast as it can, while the tools keep
touching ``link/...``. No call may return, list or change anything outside;
each one either works on the inside file or fails with a ToolError."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from paicli_tui.tools import safe_fs
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext, ToolError
from paicli_tui.tools.files import EditFile, ReadFile, WriteFile
from paicli_tui.tools.listing import ListDir
from paicli_tui.tools.trusted_urls import TrustedUrls

CALLS = 1000
INSIDE = "inside\n"
# Contains the edit's old_string, so an edit that reads the outside file
# would succeed and show it in its diff.
OUTSIDE = "inside? no: SECRET from outside\n"

# renameat2(RENAME_EXCHANGE) swaps the two names atomically, so ``link`` is
# always there, as one or the other. Where the kernel or filesystem lacks it,
# two renames per half-swap (``link`` is then briefly missing, which a tool
# may report as "does not exist"). Stops when the ``stop`` file appears and
# prints how often it swapped.
SWAPPER = r"""
import ctypes, os, sys
os.chdir(sys.argv[1])
os.symlink(sys.argv[2], "spare")
libc = ctypes.CDLL(None, use_errno=True)
exchange = getattr(libc, "renameat2", None)
if exchange is None or exchange(-100, b"link", -100, b"spare", 2) != 0:
    exchange = None
print("ready", flush=True)
swaps = 0
while not os.path.exists("stop"):
    if exchange is not None:
        exchange(-100, b"link", -100, b"spare", 2)
    else:
        for old, new in (("link", "spare_dir"), ("spare", "link"), ("link", "spare"), ("spare_dir", "link")):
            try:
                os.rename(old, new)
            except OSError:
                pass
    swaps += 1
print(swaps, flush=True)
"""


@pytest.fixture
def arena(tmp_path: Path):
    """(workspace, outside) with the swapper running; yields, then stops it
    and checks it really raced."""
    workspace = tmp_path / "workspace"
    outside = tmp_path / "outside"
    (workspace / "link").mkdir(parents=True)
    (workspace / "link" / "file.txt").write_text(INSIDE)
    outside.mkdir()
    (outside / "file.txt").write_text(OUTSIDE)
    (outside / "secret.txt").write_text(OUTSIDE)
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(workspace), str(outside)],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert swapper.stdout.readline().strip() == "ready"
        yield workspace, outside
    finally:
        (workspace / "stop").touch()
        out, _ = swapper.communicate(timeout=60)
    assert int(out.strip()) > 100, "the swapper barely ran; the test proved nothing"


def context() -> ToolContext:
    return ToolContext("racer", threading.Event(), TrustedUrls(), AutoApprover())


def outside_untouched(outside: Path) -> bool:
    return (sorted(p.name for p in outside.iterdir()) == ["file.txt", "secret.txt"]
            and (outside / "file.txt").read_text() == OUTSIDE and (outside / "secret.txt").read_text() == OUTSIDE)


def attempt(call) -> tuple[str, str]:
    """('ok', content) | ('refused', message) | ('crash', what) for one call."""
    try:
        return "ok", call()
    except ToolError as exc:
        message = str(exc)
        return ("refused", message) if message and "\n" not in message else ("crash", f"bad message {message!r}")
    except Exception as exc:  # anything but a ToolError is a failure of the sandbox's error handling
        return "crash", f"{type(exc).__name__}: {exc}"


def tally(outcomes: list[tuple[str, str]], escaped: int) -> str:
    kinds = [kind for kind, _ in outcomes]
    crashes = sorted({text for kind, text in outcomes if kind == "crash"})[:3]
    return (f"{kinds.count('ok')} ok, {kinds.count('refused')} refused, {kinds.count('crash')} crashed "
            f"{crashes}, {escaped} escaped")


def test_read_file_never_returns_the_outside_file(arena):
    workspace, outside = arena
    tool = ReadFile(workspace)
    outcomes = [attempt(lambda: tool.run({"path": "link/file.txt"}, context()).content) for _ in range(CALLS)]
    escaped = sum(1 for kind, text in outcomes if "SECRET" in text)
    wrong = [text for kind, text in outcomes if kind == "ok" and text != INSIDE]
    assert escaped == 0 and not wrong and all(kind != "crash" for kind, _ in outcomes), tally(outcomes, escaped)
    assert any(kind == "ok" for kind, _ in outcomes), tally(outcomes, escaped)


def test_list_dir_never_lists_the_outside_directory(arena):
    workspace, outside = arena
    tool = ListDir(workspace)
    outcomes = [attempt(lambda: tool.run({"path": "link"}, context()).content) for _ in range(CALLS)]
    escaped = sum(1 for kind, text in outcomes if "secret.txt" in text)
    assert escaped == 0 and all(kind != "crash" for kind, _ in outcomes), tally(outcomes, escaped)
    assert any(kind == "ok" and text == f"file.txt  {len(INSIDE)}" for kind, text in outcomes), tally(outcomes, 0)


def test_write_file_never_lands_outside(arena):
    workspace, outside = arena
    tool = WriteFile(workspace)
    args = {"path": "link/file.txt", "content": INSIDE}
    outcomes, escaped = [], 0
    for _ in range(CALLS):
        outcomes.append(attempt(lambda: tool.preview(args) + tool.run(args, context()).content))
        if not outside_untouched(outside):
            escaped += 1
            restore(outside)
    assert escaped == 0 and all(kind != "crash" for kind, _ in outcomes), tally(outcomes, escaped)
    assert not any("SECRET" in text for _, text in outcomes)
    assert any(kind == "ok" for kind, _ in outcomes), tally(outcomes, escaped)
    assert outside_untouched(outside)


def test_edit_file_never_reads_or_writes_outside(arena):
    workspace, outside = arena
    tool = EditFile(workspace)
    args = {"path": "link/file.txt", "old_string": "inside", "new_string": "inside"}
    outcomes, escaped = [], 0
    for _ in range(CALLS):  # run reads the file as its preview does (EditFile._prepare)
        outcomes.append(attempt(lambda: tool.run(args, context()).content))
        if not outside_untouched(outside) or "SECRET" in outcomes[-1][1]:
            escaped += 1
            restore(outside)
    assert escaped == 0 and all(kind != "crash" for kind, _ in outcomes), tally(outcomes, escaped)
    assert any(kind == "ok" for kind, _ in outcomes), tally(outcomes, escaped)
    assert outside_untouched(outside)


def restore(outside: Path) -> None:
    for stray in outside.iterdir():
        stray.unlink()
    (outside / "file.txt").write_text(OUTSIDE)
    (outside / "secret.txt").write_text(OUTSIDE)


def test_safe_fs_walk_holds_without_the_name_check(arena):
    """The same race straight against safe_fs, with no resolve_in_workspace
    before it: every refusal here is the walk's own."""
    workspace, outside = arena
    outcomes = []
    for _ in range(CALLS):
        outcomes.append(attempt(lambda: safe_fs.open_file(workspace, "link/file.txt", "f").read().decode()))
        outcomes.append(attempt(lambda: str(safe_fs.list_dir(workspace, "link", "d", 10))))
        outcomes.append(attempt(lambda: str(safe_fs.replace_file(workspace, "link/file.txt", "f", INSIDE.encode()))))
    escaped = sum(1 for _, text in outcomes if "SECRET" in text or "secret.txt" in text)
    assert escaped == 0 and all(kind != "crash" for kind, _ in outcomes), tally(outcomes, escaped)
    assert outside_untouched(outside)
    refusals = {text for kind, text in outcomes if kind == "refused"}
    # Each refusal is one of the walk's own: the link led outside, the name
    # was gone, or it changed between two looks (the walk retries, then gives
    # up rather than guess) — the last only when the swapper wins the retries,
    # which a loaded machine makes likelier.
    safe = ("resolves outside the workspace through a symlink", "does not exist", "kept changing while it was being opened")
    assert all(any(reason in text for reason in safe) for text in refusals), refusals
    assert any(kind == "ok" for kind, _ in outcomes) and refusals
