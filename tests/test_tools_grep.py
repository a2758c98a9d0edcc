"""grep_code over real trees: skip lists, .gitignore in a real git repo,
binary files, caps and bad patterns."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.tools.trusted_urls import TrustedUrls


def grep(workspace: Path, **args):
    ctx = ToolContext("tester", threading.Event(), TrustedUrls(), AutoApprover())
    return ToolRegistry(workspace, Settings()).execute(ToolCall("g", "grep_code", json.dumps(args)), ctx)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    files = {
        "src/app.py": "def needle():\n    return 1\n",
        "src/util.py": "x = 'Needle'\n",
        "docs/guide.md": "find the needle here\n",
        "build/gen.py": "needle = 'generated'\n",
        ".venv/lib/site.py": "needle in venv\n",
        "node_modules/pkg/index.js": "needle in node_modules\n",
        "src/__pycache__/app.cpython.pyc": "needle cached\n",
        "myenv/pyvenv.cfg": "home = /usr\n",
        "myenv/lib/mod.py": "needle in custom venv\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "data.bin").write_bytes(b"needle\x00\x01")
    return root


def matched_files(result) -> set[str]:
    return {line.split(":", 1)[0] for line in result.content.splitlines() if not line.startswith("[")}


def test_skips_virtualenvs_node_modules_caches_and_binaries(tree):
    result = grep(tree, pattern="needle")
    assert result.ok
    assert matched_files(result) == {"src/app.py", "docs/guide.md", "build/gen.py"}
    assert "src/app.py:1: def needle():" in result.content


def test_respects_gitignore_in_a_git_repository(tree):
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    (tree / ".gitignore").write_text("build/\n*.md\n")
    result = grep(tree, pattern="needle")
    assert matched_files(result) == {"src/app.py"}


def test_gitignore_is_ignored_outside_a_repository(tree):
    (tree / ".gitignore").write_text("build/\n")
    assert "build/gen.py" in matched_files(grep(tree, pattern="needle"))


def test_path_glob_and_case_options(tree):
    assert matched_files(grep(tree, pattern="needle", path="src")) == {"src/app.py"}
    assert matched_files(grep(tree, pattern="needle", ignore_case=True, glob="src/*.py")) == {
        "src/app.py", "src/util.py"}
    single = grep(tree, pattern="return", path="src/app.py")
    assert single.content == "src/app.py:2:     return 1"


def test_caps_matches_with_a_note(tmp_path):
    (tmp_path / "many.txt").write_text("hit\n" * 50)
    result = grep(tmp_path, pattern="hit", max_results=10)
    assert result.content.count("many.txt:") == 10
    assert "[stopped at 10 matches" in result.content
    assert result.summary == "10 matches+ in 1 file"


def test_bad_regex_and_outside_path_are_errors(tree):
    bad = grep(tree, pattern="(unclosed")
    assert not bad.ok and "invalid regular expression" in bad.content
    outside = grep(tree, pattern="x", path="..")
    assert not outside.ok and outside.content.startswith("refused:")


def test_no_match_message(tree):
    result = grep(tree, pattern="absent-word")
    assert result.ok and result.content.startswith("no matches for 'absent-word'")
