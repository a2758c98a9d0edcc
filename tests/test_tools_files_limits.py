"""read_file, write_file and edit_file stay bounded by what they return, not
by the file (issue 12, class 6), and write_file replaces binary and non-UTF-8
files (class 9)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext, ToolError
from paicli_tui.tools.files import (DIFF_CAP_BYTES, EDIT_CAP_BYTES, READ_CAP_BYTES, EditFile, ReadFile, WriteFile,
                                   _select_lines)
from paicli_tui.tools.trusted_urls import TrustedUrls

GIANT_BYTES = 300 * 2**20
RSS_LIMIT_KB = 150 * 1024

# Runs in a fresh interpreter so its peak RSS is that of just these calls
# (plus the imports); prints one JSON object.
PROBE = r"""
import json, sys, threading
from pathlib import Path
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext, ToolError
from paicli_tui.tools.files import EditFile, ReadFile, WriteFile
from paicli_tui.tools.trusted_urls import TrustedUrls

workspace, which = Path(sys.argv[1]), sys.argv[2]
ctx = ToolContext("probe", threading.Event(), TrustedUrls(), AutoApprover())
def attempt(call):
    try:
        return call()
    except ToolError as exc:
        return "error: " + str(exc)
out = {}
if which == "read":
    out["read"] = ReadFile(workspace).run({"path": "giant.txt"}, ctx).content
    out["past_end"] = attempt(lambda: ReadFile(workspace).run({"path": "giant.txt", "start_line": 3}, ctx).content)
else:
    edit = {"path": "giant.txt", "old_string": "xx", "new_string": "y"}
    out["edit"] = attempt(lambda: EditFile(workspace).run(edit, ctx).content)
    write = {"path": "giant.txt", "content": "small\n"}
    out["preview"] = WriteFile(workspace).preview(write)
    out["write"] = WriteFile(workspace).run(write, ctx).content
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent
# across fork and exec, so a big pytest process would inflate it.
out["rss_kb"] = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps(out))
"""


@pytest.fixture
def giant(tmp_path: Path):
    """A workspace holding a 300 MB file that is one line; removed after."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    path = workspace / "giant.txt"
    chunk = b"x" * 2**20
    with path.open("wb") as handle:
        for _ in range(GIANT_BYTES // len(chunk)):
            handle.write(chunk)
    try:
        yield workspace
    finally:
        path.unlink(missing_ok=True)


def probe(workspace: Path, which: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[1]),
                                                         os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", PROBE, str(workspace), which], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_reading_one_giant_line_holds_only_what_it_returns(giant):
    out = probe(giant, "read")
    assert out["rss_kb"] < RSS_LIMIT_KB, f"peak RSS {out['rss_kb'] // 1024} MB"
    body, _, note = out["read"].rpartition("\n[truncated")
    assert body == "x" * READ_CAP_BYTES + "\n"
    assert note.startswith(" at 256 KB: showed lines 1-1; read further with start_line=2]")
    assert out["past_end"] == "error: giant.txt has 1 line; start_line 3 is past the end"


def test_writing_over_a_giant_file_does_not_read_it(giant):
    out = probe(giant, "write")
    assert out["rss_kb"] < RSS_LIMIT_KB, f"peak RSS {out['rss_kb'] // 1024} MB"
    assert out["edit"] == (f"error: giant.txt is {GIANT_BYTES} bytes; edit_file works on files up to "
                           f"{EDIT_CAP_BYTES // 2**20} MiB (use write_file to replace it whole)")
    assert out["preview"].startswith(f"replaces a {GIANT_BYTES}-byte file (too large to diff)\n")
    assert "+small" in out["preview"]
    assert out["write"] == "overwrote giant.txt (1 line)"
    assert (giant / "giant.txt").read_text() == "small\n"


def context() -> ToolContext:
    return ToolContext("tester", threading.Event(), TrustedUrls(), AutoApprover())


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.mark.parametrize("old, what", [(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a binary file (16 bytes)"),
                                       (b"caf\xe9 cr\xe8me\n", "a non-UTF-8 file (11 bytes)")])
def test_write_file_replaces_binary_and_non_utf8_files(workspace, old, what):
    target = workspace / "old.dat"
    target.write_bytes(old)
    args = {"path": "old.dat", "content": "now text\n"}
    preview = WriteFile(workspace).preview(args)
    assert preview.splitlines()[0] == f"replaces {what}"
    assert "+now text" in preview
    result = WriteFile(workspace).run(args, context())
    assert result.content == "overwrote old.dat (1 line)"
    assert target.read_bytes() == b"now text\n"


@pytest.mark.parametrize("old, refusal", [(b"GIF89a\x00\x01", "old.dat looks like a binary file"),
                                          (b"caf\xe9\n", "old.dat is not valid UTF-8 text (byte 3)")])
def test_edit_file_still_refuses_binary_and_non_utf8_files(workspace, old, refusal):
    (workspace / "old.dat").write_bytes(old)
    args = {"path": "old.dat", "old_string": "caf", "new_string": "tea"}
    for call in (lambda: EditFile(workspace).preview(args), lambda: EditFile(workspace).run(args, context())):
        with pytest.raises(ToolError, match=re.escape(refusal)):
            call()
    assert (workspace / "old.dat").read_bytes() == old


def test_write_preview_of_a_large_text_file_is_a_note_not_a_diff(workspace):
    big = workspace / "big.txt"
    big.write_text("line\n" * (DIFF_CAP_BYTES // 5 + 1))
    preview = WriteFile(workspace).preview({"path": "big.txt", "content": "short\n"})
    assert preview.splitlines()[0] == f"replaces a {big.stat().st_size}-byte file (too large to diff)"
    assert "-line" not in preview


def test_edit_file_refuses_a_file_over_the_cap_in_one_line(workspace):
    big = workspace / "big.txt"
    with big.open("w") as handle:
        handle.write("needle\n" + "y" * EDIT_CAP_BYTES)
    with pytest.raises(ToolError) as refused:
        EditFile(workspace).run({"path": "big.txt", "old_string": "needle", "new_string": "pin"}, context())
    message = str(refused.value)
    assert "\n" not in message and message.startswith(f"big.txt is {EDIT_CAP_BYTES + 7} bytes;")
    assert big.read_text().startswith("needle\n")


def test_read_file_with_long_lines_keeps_line_numbers_and_continuation(workspace):
    # Lines longer than the piece size are read in pieces; counting and the
    # continuation hint must still be right.
    long = "z" * (100 * 1024) + "\n"
    (workspace / "long.txt").write_text(long * 5 + "tail\n")
    first = ReadFile(workspace).run({"path": "long.txt"}, context()).content
    assert first.startswith(long * 2) and first.endswith("read further with start_line=3]")
    assert ReadFile(workspace).run({"path": "long.txt", "start_line": 6}, context()).content == "tail\n"
    with pytest.raises(ToolError, match="has 6 lines; start_line 8 is past the end"):
        ReadFile(workspace).run({"path": "long.txt", "start_line": 8}, context())


def test_a_giant_line_after_the_cap_is_not_read_through(workspace):
    path = workspace / "tail.txt"
    path.write_bytes(b"a\nb\n" + b"q" * (8 * 2**20) + b"\nlast\n")
    with path.open("rb") as handle:
        lines, _seen, truncated = _select_lines(handle, 1, None)
        stopped_at = handle.tell()
    assert lines == ["a\n", "b\n"] and truncated
    assert stopped_at <= 2 * READ_CAP_BYTES
