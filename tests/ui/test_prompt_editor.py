"""Pilot tests for the prompt editor: sending, new lines, growing, pastes,
history (kept per workspace), and keys that arrive in one burst."""

from __future__ import annotations

import json
import os
import stat

from textual import events

from paicli_tui.ui.conversation.prompt_history import history_path
from tests.ui.conftest import RecordingApp, settle, submit, transcript_text
from tests.ui.fake_session import FakeSession

SIZE = (120, 36)


async def test_enter_sends_and_the_new_line_keys_insert_a_line(app, session):
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.main_screen.prompt
        await pilot.press("o", "n", "e", "shift+enter", "t", "w", "o", "ctrl+j", "3", "alt+enter", "4",
                          "ctrl+enter", "5")
        assert prompt.text == "one\ntwo\n3\n4\n5"
        assert session.submitted == []
        await pilot.press("enter")
        await settle(pilot)
        assert session.submitted == ["one\ntwo\n3\n4\n5"]
        assert prompt.text == ""


async def test_the_xterm_modify_other_keys_names_are_new_lines_too(app):
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.main_screen.prompt
        # What ESC [27;2;13~, ESC [27;5;13~ and ESC [27;3;13~ parse to.
        for name in ("shift+\r", "ctrl+\r", "\r"):
            prompt.post_message(events.Key(name, "\r"))
        await pilot.pause()
        assert prompt.text == "\n\n\n"


async def test_the_editor_grows_to_eight_rows_then_scrolls(app):
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.main_screen.prompt
        await pilot.pause()
        one_row = prompt.outer_size.height
        prompt.load_text("\n".join(f"line {i}" for i in range(4)))
        await pilot.pause()
        assert prompt.outer_size.height == one_row + 3
        prompt.load_text("\n".join(f"line {i}" for i in range(30)))
        await pilot.pause()
        assert prompt.outer_size.height == one_row + 7  # eight rows of text
        assert prompt.max_scroll_y > 0 and prompt.cursor_location == (29, 7)


async def test_a_short_paste_keeps_every_line(app, session):
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.main_screen.prompt
        prompt.post_message(events.Paste("a\r\nb\nc"))
        await pilot.pause()
        assert prompt.text == "a\nb\nc"
        await pilot.press("enter")
        assert session.submitted == ["a\nb\nc"]


async def test_a_long_paste_is_shown_collapsed_and_sent_whole(app, session):
    block = "\n".join(f"row {i}" for i in range(120))
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.main_screen.prompt
        await pilot.press(*"look:", "space")
        prompt.post_message(events.Paste(block))
        await pilot.pause()
        prompt.post_message(events.Paste(block))
        await pilot.pause()
        assert prompt.text == "look: [pasted 120 lines][pasted 120 lines #2]"
        await pilot.press("backspace")  # takes the second block whole
        assert prompt.text == "look: [pasted 120 lines]"
        await pilot.press("enter")
        await settle(pilot)
        assert session.submitted == ["look: " + block]
        assert "› look: [pasted 120 lines]" in transcript_text(app)


async def test_a_recalled_input_keeps_its_paste_collapsed_across_a_restart(tmp_path):
    block = "\n".join(f"trace {i}" for i in range(50))
    first = RecordingApp(FakeSession(workspace=tmp_path), theme="paicli-dark")
    async with first.run_test(size=SIZE) as pilot:
        await pilot.press(*"why?", "space")
        first.main_screen.prompt.post_message(events.Paste(block))
        await pilot.pause()
        await pilot.press("enter")
    again = RecordingApp(FakeSession(workspace=tmp_path), theme="paicli-dark")
    async with again.run_test(size=SIZE) as pilot:
        await pilot.press(*"draft", "up")
        assert again.main_screen.prompt.text == "why? [pasted 50 lines]"
        await pilot.press("enter")
        assert again.session.submitted == ["why? " + block]


async def test_a_long_single_line_paste_is_counted_in_characters(app, session):
    async with app.run_test(size=SIZE) as pilot:
        app.main_screen.prompt.post_message(events.Paste("x" * 1500))
        await pilot.pause()
        assert app.main_screen.prompt.text == "[pasted 1,500 characters]"


async def test_history_walks_only_from_the_first_and_last_line(app, session):
    async with app.run_test(size=SIZE) as pilot:
        for line in ("first", "two\nlines"):
            await submit(pilot, line)
            session.finish()
        prompt = app.main_screen.prompt
        prompt.insert("draft")
        await pilot.press("up")
        assert prompt.text == "two\nlines" and prompt.cursor_location == (1, 5)
        await pilot.press("up")  # inside the entry: the cursor moves
        assert prompt.text == "two\nlines" and prompt.cursor_location[0] == 0
        await pilot.press("up")
        assert prompt.text == "first"
        await pilot.press("up")
        assert prompt.text == "first"
        await pilot.press("down")
        assert prompt.text == "two\nlines"
        await pilot.press("down")
        assert prompt.text == "draft"


async def test_history_survives_a_restart_in_the_same_workspace_only(tmp_path):
    first = RecordingApp(FakeSession(workspace=tmp_path), theme="paicli-dark")
    async with first.run_test(size=SIZE) as pilot:
        await submit(pilot, "remember me")
        await submit(pilot, "and\nme")
    path = history_path(tmp_path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert [json.loads(line)["text"] for line in path.read_text().splitlines()] == ["remember me", "and\nme"]

    again = RecordingApp(FakeSession(workspace=tmp_path), theme="paicli-dark")
    async with again.run_test(size=SIZE) as pilot:
        await pilot.press("up")
        assert again.main_screen.prompt.text == "and\nme"
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    other = RecordingApp(FakeSession(workspace=elsewhere), theme="paicli-dark")
    async with other.run_test(size=SIZE) as pilot:
        await pilot.press("up")
        assert other.main_screen.prompt.text == ""


async def test_a_corrupt_history_file_warns_once_and_starts_empty(tmp_path):
    path = history_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text('{"text": "ok"}\nnot json at all\n{"text": "later"}\n')
    app = RecordingApp(FakeSession(workspace=tmp_path), theme="paicli-dark")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        (warning,) = [notice for notice in app.notices if "input history" in notice]
        assert "line 2 is not a history entry" in warning and "\n" not in warning
        await pilot.press("up")
        assert app.main_screen.prompt.text == ""
        await submit(pilot, "fresh")
    assert path.with_name(path.name + ".corrupt").read_text().startswith('{"text": "ok"}')
    assert json.loads(path.read_text())["text"] == "fresh"


async def test_a_burst_of_keys_is_applied_in_order(app, session):
    """Ctrl+U, text and Enter in one write, as a terminal delivers them:
    every key is queued before the first one is handled."""
    async with app.run_test(size=SIZE) as pilot:
        app.main_screen.prompt.load_text("old words")
        await pilot.pause()
        burst = [events.Key("ctrl+u", "\x15"), *[events.Key(c, c) for c in "new text"],
                 events.Key("left", None), events.Key("backspace", "\x7f"), events.Key("enter", "\r")]
        for key in burst:
            app.post_message(key)
        await settle(pilot)
        assert session.submitted == ["new tet"]
