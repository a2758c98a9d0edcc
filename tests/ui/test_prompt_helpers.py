"""The prompt's pure helpers: @ mentions, ranking files for a query,
listing the workspace with rg, and collapsed pastes."""

from __future__ import annotations

import subprocess

from paicli_tui.ui.conversation.file_mentions import Mention, WorkspaceFileIndex, mention_at, mentioned_paths, rank
from paicli_tui.ui.conversation.pasted_blocks import PastedBlocks, is_long, normalise


def test_a_mention_is_an_at_sign_after_whitespace_up_to_the_cursor():
    assert mention_at("see @src/ma", 11) == Mention(4, "src/ma")
    assert mention_at("@", 1) == Mention(0, "")
    assert mention_at("mail me@host", 12) is None  # inside a word
    assert mention_at("see @src now", 12) is None  # a space after it: finished
    assert mention_at("see @src now", 8) == Mention(4, "src")


def test_mentioned_paths_drop_trailing_punctuation():
    assert mentioned_paths("read @a.py, then @docs/b.md. and me@x @") == ["a.py", "docs/b.md"]


def test_ranking_prefers_the_file_name_then_the_path_then_a_spread_match():
    paths = ["src/app.py", "docs/app_notes.md", "tests/test_app.py", "lib/apply.py", "a/p/p.txt", "README.md"]
    # the name starts with it (shorter path first), holds it, then the letters spread over the path
    assert rank("app", paths) == ["src/app.py", "lib/apply.py", "docs/app_notes.md", "tests/test_app.py", "a/p/p.txt"]
    assert rank("srcapp", paths) == ["src/app.py"]
    assert rank("zzz", paths) == []
    assert rank("", paths, limit=2) == ["README.md", "docs/app_notes.md"]  # shallowest first


def test_the_index_lists_with_rg_respecting_gitignore(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    for name in ("src/main.py", "build/out.js", "debug.log", "node_modules/x/index.js", "notes.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    index = WorkspaceFileIndex(tmp_path)
    assert index.stale() and not index.listed
    index.refresh()
    assert index.files == [".gitignore", "notes.md", "src/main.py"] and index.problem == ""
    assert not index.stale()
    assert index.search("main") == ["src/main.py"]


def test_a_listing_that_fails_says_why_in_one_line(tmp_path):
    index = WorkspaceFileIndex(tmp_path / "missing")
    index.refresh()
    assert index.files == [] and index.problem.startswith("cannot list the workspace's files")
    assert "\n" not in index.problem and index.listed


def test_pastes_collapse_when_long_and_expand_whole():
    assert normalise("a\r\nb\rc") == "a\nb\nc"
    assert not is_long("\n".join("x" * 10)) and is_long("\n".join("x" * 11)) and is_long("y" * 1001)
    blocks = PastedBlocks()
    first = blocks.add("1\n2\n3\n")
    second = blocks.add("4\n5\n6")
    assert (first, second) == ("[pasted 3 lines]", "[pasted 3 lines #2]")
    assert blocks.expand(f"{first} and {second}") == "1\n2\n3\n and 4\n5\n6"
    assert blocks.token_ending(f"look {second}") == second and blocks.token_ending("look") is None
