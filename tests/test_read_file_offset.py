"""read_file with start_line far into a big file skips to it by counting
newlines in blocks instead of reading line by line (it took 168 s on a file
of long lines), and returns exactly the lines asked for."""

from __future__ import annotations

import json
import threading
import time

import pytest

from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.config.settings import Settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext
from paicli_tui.tools.trusted_urls import TrustedUrls

pytestmark = pytest.mark.timeout(60)


def read(workspace, **args):
    ctx = ToolContext("tester", threading.Event(), TrustedUrls(), AutoApprover())
    return ToolRegistry(workspace, Settings(sandbox="off")).execute(ToolCall("x", "read_file", json.dumps(args)), ctx)


@pytest.mark.parametrize("text,start,end,expected", [
    ("a\nb\nc\n", 2, 3, "b\nc\n"),
    ("a\nb\nc", 3, None, "c"),
    ("a\n\n\nd\n", 4, 4, "d\n"),
    ("one\n", 1, None, "one\n"),
])
def test_the_lines_asked_for_are_the_lines_returned(tmp_path, text, start, end, expected):
    (tmp_path / "f.txt").write_text(text)
    args = {"path": "f.txt", "start_line": start, **({"end_line": end} if end else {})}
    result = read(tmp_path, **args)
    assert result.ok and result.content == expected, result.content


def test_past_the_end_says_how_many_lines_there_are(tmp_path):
    (tmp_path / "f.txt").write_text("a\nb")
    result = read(tmp_path, path="f.txt", start_line=5)
    assert not result.ok and "has 2 lines" in result.content


def test_a_line_far_into_a_file_of_long_lines_comes_back_fast(tmp_path):
    line = b"x" * (64 * 1024 - 1) + b"\n"
    count = 3200  # 200 MiB
    with open(tmp_path / "big.txt", "wb") as handle:
        block = line * 64
        for _ in range(count // 64):
            handle.write(block)
        handle.write(b"the last line\n")
    started = time.monotonic()
    result = read(tmp_path, path="big.txt", start_line=count + 1, line_numbers=True)
    elapsed = time.monotonic() - started
    assert result.ok and result.content == f"{count + 1}\tthe last line\n"
    assert elapsed < 3, f"{elapsed:.1f} s"
