"""grep_code and glob_files under hostile input (issue 12, classes 3 and 9):
patterns that make a backtracking engine run forever, a search stopped by
cancel or by its deadline (the real rg process must be gone afterwards),
and an unreadable directory that must not sink the whole search."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import paicli_tui
from paicli_tui.config.settings import Settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import Deadline, ToolContext
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.tools.trusted_urls import TrustedUrls
from tests.support.searches import SLOW_PATTERN, rg_searches_in, write_slow_tree

pytestmark = pytest.mark.timeout(60)

def call(workspace: Path, tool: str, settings: Settings | None = None, ctx: ToolContext | None = None, **args):
    ctx = ctx or ToolContext("tester", threading.Event(), TrustedUrls(), AutoApprover())
    registry = ToolRegistry(workspace, settings or Settings())
    return registry.execute(ToolCall("c1", tool, json.dumps(args)), ctx)


def write(root: Path, name: str, text: str) -> None:
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text, encoding="utf-8")


# -- patterns that would backtrack forever ---------------------------------------------


def test_catastrophic_regex_is_answered(tmp_path):
    write(tmp_path, "s.txt", "a" * 41 + "b\naaaa\n")
    result = call(tmp_path, "grep_code", pattern="(a+)+$")
    assert result.ok, result.content
    assert result.content == "s.txt:2: aaaa"


def test_catastrophic_glob_is_answered(tmp_path):
    write(tmp_path, "a" * 60, "x\n")
    write(tmp_path, "a" * 30 + "b", "x\n")
    pattern = "*a" * 12 + "b"
    listed = call(tmp_path, "glob_files", pattern=pattern)
    assert listed.ok and listed.content == "a" * 30 + "b"
    searched = call(tmp_path, "grep_code", pattern="x", glob=pattern)
    assert searched.ok and searched.content == "a" * 30 + "b:1: x"


def test_rust_regex_errors_are_one_line(tmp_path):
    write(tmp_path, "s.txt", "x\n")
    for pattern in ("(unclosed", "(?=x)y", r"(a)\1"):
        result = call(tmp_path, "grep_code", pattern=pattern)
        assert not result.ok
        assert result.content.startswith(f"invalid regular expression {pattern!r}: ")
        assert "\n" not in result.content and "Rust regex syntax" in result.content


def test_pattern_that_looks_like_a_flag_is_a_pattern(tmp_path):
    write(tmp_path, "s.txt", "use --files here\n")
    assert call(tmp_path, "grep_code", pattern="--files").content == "s.txt:1: use --files here"


def test_paths_with_colons_and_output_relative_to_workspace(tmp_path):
    write(tmp_path, "we:ird/c:1.py", "x = 'a: b'\n")
    result = call(tmp_path, "grep_code", pattern="a: b", glob="we:ird/*.py")
    assert result.content == "we:ird/c:1.py:1: x = 'a: b'"
    assert call(tmp_path, "grep_code", pattern="a: b", path="we:ird").content == "we:ird/c:1.py:1: x = 'a: b'"


def test_user_ripgrep_config_is_ignored(tmp_path, monkeypatch):
    config = tmp_path / "rgrc"
    config.write_text("--ignore-case\n--max-count=1\n")
    monkeypatch.setenv("RIPGREP_CONFIG_PATH", str(config))
    write(tmp_path / "ws", "s.txt", "Hit\nhit\nhit\n")
    assert call(tmp_path / "ws", "grep_code", pattern="hit").content == "s.txt:2: hit\ns.txt:3: hit"


def test_long_lines_are_cut_and_huge_files_skipped(tmp_path):
    write(tmp_path, "long.txt", "needle" + "x" * 1000 + "\n")
    write(tmp_path, "huge.txt", "needle\n" + "y" * (3 * 1024 * 1024))
    result = call(tmp_path, "grep_code", pattern="needle")
    assert result.content == "long.txt:1: needle" + "x" * 294 + "…"
    assert call(tmp_path, "grep_code", pattern="needle", path="huge.txt").content.startswith("no matches")


def test_gitignore_and_symlinks(tmp_path):
    root = tmp_path / "ws"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root, ".gitignore", "*.log\n")
    write(root, "pkg/.gitignore", "generated/\n")
    write(root, "pkg/mod.py", "needle\n")
    write(root, "pkg/generated/out.py", "needle\n")
    write(root, "debug.log", "needle\n")
    write(tmp_path, "outside/secret.py", "needle\n")
    os.symlink(tmp_path / "outside", root / "escape")
    os.symlink(tmp_path / "outside" / "secret.py", root / "secret_link.py")
    assert call(root, "grep_code", pattern="needle").content == "pkg/mod.py:1: needle"
    assert call(root, "glob_files", pattern="**/*.py").content == "pkg/mod.py"
    assert call(root, "glob_files", pattern="escape/*.py").content == "no files match 'escape/*.py'"


# -- cancel and the deadline kill rg ----------------------------------------------------


@pytest.fixture(scope="module")
def slow_tree(tmp_path_factory) -> Path:
    return write_slow_tree(tmp_path_factory.mktemp("slow"))


def test_cancel_kills_the_running_search(slow_tree):
    cancel = threading.Event()
    ctx = ToolContext("tester", cancel, TrustedUrls(), AutoApprover())
    outcome = []
    worker = threading.Thread(target=lambda: outcome.append(call(slow_tree, "grep_code", ctx=ctx, pattern=SLOW_PATTERN)))
    worker.start()
    while not rg_searches_in(slow_tree) and worker.is_alive():
        time.sleep(0.01)
    seen = rg_searches_in(slow_tree)
    cancel.set()
    worker.join(30)
    assert seen, f"rg finished before it could be cancelled: {outcome}"
    assert not worker.is_alive()
    (result,) = outcome
    assert not result.ok and result.content == "grep_code cancelled"
    assert rg_searches_in(slow_tree) == []


def test_deadline_gives_a_failed_result_and_kills_rg(slow_tree):
    result = call(slow_tree, "grep_code", settings=Settings(tool_timeout=0.5), pattern=SLOW_PATTERN)
    assert not result.ok
    assert result.content == "grep_code stopped after 0.5 s (deadline); narrow the search"
    assert result.summary == result.content
    assert rg_searches_in(slow_tree) == []


def test_glob_files_honours_a_callers_deadline(tmp_path):
    write(tmp_path, "a.py", "")
    ctx = ToolContext("tester", threading.Event(), TrustedUrls(), AutoApprover(), deadline=Deadline(2.0, time.monotonic()))
    result = call(tmp_path, "glob_files", ctx=ctx, pattern="*.py")
    assert not result.ok and result.content == "glob_files stopped after 2 s (deadline); narrow the search"


# -- one unreadable directory -----------------------------------------------------------

# Tests run as root, for whom mode 000 blocks nothing. The child drops the two
# capabilities that let root ignore permissions (CAP_DAC_OVERRIDE,
# CAP_DAC_READ_SEARCH) from its bounding set before exec, so it, and the rg it
# starts, are refused exactly as an ordinary user would be.
DROP_DAC = textwrap.dedent("""
    import ctypes, os, sys
    libc = ctypes.CDLL(None, use_errno=True)
    def drop():
        for cap in (1, 2):
            if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
                os._exit(97)
""")

CHILD = textwrap.dedent("""
    import json, os, sys, threading
    from pathlib import Path
    from paicli_tui.config.settings import Settings
    from paicli_tui.llm.types import ToolCall
    from paicli_tui.policy.approval import AutoApprover
    from paicli_tui.tools.base import ToolContext
    from paicli_tui.agent.registry import ToolRegistry
    from paicli_tui.tools.trusted_urls import TrustedUrls
    workspace = Path(sys.argv[1])
    try:
        os.listdir(workspace / "locked")
        readable = True
    except PermissionError:
        readable = False
    out = {"locked_readable": readable}
    for name, args in (("glob_files", {"pattern": "**/*.txt"}), ("grep_code", {"pattern": "hello"})):
        ctx = ToolContext("t", threading.Event(), TrustedUrls(), AutoApprover())
        result = ToolRegistry(workspace, Settings()).execute(ToolCall("c", name, json.dumps(args)), ctx)
        out[name] = [result.ok, result.content]
    print(json.dumps(out))
""")


def run_without_dac(workspace: Path) -> dict:
    code = DROP_DAC + textwrap.dedent("""
        import subprocess
        completed = subprocess.run(sys.argv[1:], preexec_fn=drop, capture_output=True, text=True)
        sys.stderr.write(completed.stderr)
        sys.stdout.write(completed.stdout)
        sys.exit(completed.returncode)
    """)
    package_root = str(Path(paicli_tui.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    completed = subprocess.run([sys.executable, "-c", code, sys.executable, "-c", CHILD, str(workspace)],
                               capture_output=True, text=True, timeout=50, env=env)
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


@pytest.mark.parametrize("git", [False, True], ids=["plain", "git"])
def test_an_unreadable_directory_is_skipped_and_named(tmp_path, git):
    root = tmp_path / "ws"
    write(root, "ok/a.txt", "hello\n")
    write(root, "locked/b.txt", "hello\n")
    if git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "locked").chmod(0)
    try:
        out = run_without_dac(root)
    finally:
        (root / "locked").chmod(0o755)
    assert out["locked_readable"] is False  # the setup really refuses the read
    assert out["glob_files"] == [True, "ok/a.txt\n[skipped 1 unreadable path: locked/]"]
    assert out["grep_code"] == [True, "ok/a.txt:1: hello\n[skipped 1 unreadable path: locked/]"]
