"""The input history file, without the UI: bounded, private, tolerant of a
torn write, never fatal on a bad or unwritable file."""

from __future__ import annotations

import json
import os
import stat

from paicli_tui.ui.conversation import prompt_history
from paicli_tui.ui.conversation.prompt_history import Entry, PromptHistory, history_path


def test_one_file_per_workspace_keyed_by_the_resolved_path(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    os.symlink(tmp_path / "a", tmp_path / "link")
    assert history_path(tmp_path / "a") == history_path(tmp_path / "link")
    assert history_path(tmp_path / "a") != history_path(tmp_path / "b")
    assert history_path(tmp_path / "a").parent.name == "input-history"


def test_walking_back_and_forward_returns_the_draft(tmp_path):
    history = PromptHistory(tmp_path / "h.jsonl")
    for text in ("one", "two", "two", "  "):
        history.add(text)
    assert [entry.text for entry in history.entries] == ["one", "two"]  # no repeats, no blanks
    draft = Entry("half [pasted 3 lines]", (("[pasted 3 lines]", "a\nb\nc"),))
    assert history.back(draft) == Entry("two")
    assert history.back(Entry("ignored")) == Entry("one")
    assert history.back(Entry("ignored")) is None
    assert history.forward() == Entry("two")
    assert history.forward() == draft
    assert history.forward() is None


def test_the_file_is_private_and_read_back_with_pastes(tmp_path):
    path = tmp_path / "dir" / "h.jsonl"
    history = PromptHistory(path)
    history.add("see [pasted 2 lines]", (("[pasted 2 lines]", "x\ny"), ("[pasted 9 lines]", "gone")))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    assert PromptHistory(path).entries == [Entry("see [pasted 2 lines]", (("[pasted 2 lines]", "x\ny"),))]


def test_a_torn_last_line_is_skipped_quietly(tmp_path):
    path = tmp_path / "h.jsonl"
    path.write_text('{"text": "kept", "at": 1}\n{"text": "half wri')
    history = PromptHistory(path)
    assert [entry.text for entry in history.entries] == ["kept"] and history.warning == ""


def test_a_corrupt_line_moves_the_file_aside_with_one_warning(tmp_path):
    path = tmp_path / "h.jsonl"
    path.write_text('{"text": "a"}\n["not", "an", "entry"]\n')
    history = PromptHistory(path)
    assert history.entries == []
    assert "line 2 is not a history entry" in history.warning and "h.jsonl.corrupt" in history.warning
    history.add("new")
    assert [json.loads(line)["text"] for line in path.read_text().splitlines()] == ["new"]
    assert path.with_name("h.jsonl.corrupt").exists()


def test_an_unreadable_or_unwritable_file_keeps_the_history_in_memory(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    unreadable = PromptHistory(blocker / "h.jsonl")  # a file where the directory should be
    unreadable.add("still here")
    assert [entry.text for entry in unreadable.entries] == ["still here"]
    assert "cannot be read" in unreadable.warning and "\n" not in unreadable.warning

    unwritable = PromptHistory(tmp_path / "later" / "h.jsonl")
    (tmp_path / "later").write_text("")  # the directory cannot be made any more
    unwritable.add("kept anyway")
    assert [entry.text for entry in unwritable.entries] == ["kept anyway"]
    assert "kept for this session only" in unwritable.warning and "\n" not in unwritable.warning


def test_the_file_is_compacted_to_the_newest_entries(tmp_path, monkeypatch):
    monkeypatch.setattr(prompt_history, "MAX_ENTRIES", 10)
    path = tmp_path / "h.jsonl"
    history = PromptHistory(path)
    for i in range(40):
        history.add(f"input {i}")
    lines = path.read_text().splitlines()
    assert len(lines) <= 15 and json.loads(lines[-1])["text"] == "input 39"
    assert [entry.text for entry in PromptHistory(path).entries] == [f"input {i}" for i in range(30, 40)]


def test_a_huge_input_is_remembered_but_not_written(tmp_path, monkeypatch):
    monkeypatch.setattr(prompt_history, "MAX_SAVED_CHARS", 100)
    path = tmp_path / "h.jsonl"
    history = PromptHistory(path)
    history.add("x" * 500)
    history.add("small")
    assert len(history.entries) == 2
    assert [entry.text for entry in PromptHistory(path).entries] == ["small"]
