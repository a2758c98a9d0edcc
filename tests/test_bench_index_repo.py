"""The generated repository bench/index.py indexes: the same tree for the
same seed, every language present, and every file valid source for its
grammar (a bench of parse errors would measure the wrong thing)."""

from __future__ import annotations

import sys
from pathlib import Path

from paicli_tui.knowledge.codeindex.languages import language_of
from paicli_tui.knowledge.codeindex.parse import parse_source

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from index_repo import generate  # noqa: E402


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_generated_tree_is_fixed_and_parses_cleanly(tmp_path):
    generate(tmp_path / "a", 80)
    generate(tmp_path / "b", 80)
    first = _tree(tmp_path / "a")
    assert first == _tree(tmp_path / "b")
    languages = {language_of(path) for path in first}
    assert {"python", "typescript", "go", "rust", "java"} <= languages
    for path, text in first.items():
        language = language_of(path)
        if language in ("markdown", "text"):
            continue
        parsed = parse_source(path, language, text.encode())
        assert not parsed.has_errors, path
        assert parsed.definitions and parsed.calls, path
