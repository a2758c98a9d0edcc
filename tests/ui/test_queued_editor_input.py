"""The prompt editor and the turn queue together (issue 13 items 1-3): what
Enter queues while a turn runs keeps its attached files and its collapsed
pastes, is shown as it was typed, and comes back into the editor (Up, Esc)
still collapsed and still sent whole."""

from __future__ import annotations

from textual import events

from tests.ui.conftest import RecordingApp, settle, submit, transcript_text
from tests.ui.fake_session import FakeSession, Outcome

SIZE = (120, 36)
BLOCK = "\n".join(f"line {i}" for i in range(120))
OTHER_BLOCK = "\n".join(f"other {i}" for i in range(120))


def workspace_app(tmp_path) -> RecordingApp:
    (tmp_path / "notes.md").write_text("# notes\n", encoding="utf-8")
    return RecordingApp(FakeSession(workspace=tmp_path), theme="paicli-dark")


async def paste(pilot, text: str) -> None:
    pilot.app.main_screen.prompt.post_message(events.Paste(text))
    await pilot.pause()


async def test_a_queued_input_keeps_its_attachment_and_its_collapsed_paste(tmp_path):
    app = workspace_app(tmp_path)
    session = app.session
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "first")
        await pilot.press("@", "n", "o", "t")
        await pilot.pause()
        await pilot.press("tab")  # takes notes.md from the picker
        await paste(pilot, BLOCK)
        await pilot.press("enter")
        await settle(pilot)
        queued = app.main_screen.queued
        assert queued.items == ["@notes.md [pasted 120 lines]"]
        assert "line 5" not in str(queued.render())
        session.finish()
        await settle(pilot)
        assert session.submitted[-1] == "@notes.md " + BLOCK
        assert session.attachments[-1] == ("notes.md",)
        assert "› @notes.md [pasted 120 lines]" in transcript_text(app)


async def test_up_brings_a_queued_paste_back_collapsed_and_it_still_sends_whole(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "first")
        await paste(pilot, BLOCK)
        await pilot.press("enter")
        prompt = app.main_screen.prompt
        assert prompt.text == "" and app.main_screen.queued.items == ["[pasted 120 lines]"]
        await pilot.press("up")
        assert prompt.text == "[pasted 120 lines]" and not app.main_screen.queued.items
        await pilot.press("enter")  # queued again, as it is
        session.finish()
        await settle(pilot)
        assert session.submitted == ["first", BLOCK]


async def test_escape_returns_the_queue_after_the_draft_and_a_clashing_paste_keeps_its_own_text(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "first")
        await paste(pilot, BLOCK)
        await pilot.press("enter")
        await paste(pilot, OTHER_BLOCK)  # a draft holding another paste under the same label
        prompt = app.main_screen.prompt
        assert prompt.text == "[pasted 120 lines]"
        await pilot.press("escape")
        await pilot.pause()
        assert session.cancelled == 1
        assert prompt.text == "[pasted 120 lines]\n[pasted 120 lines #2]"
        session.finish(Outcome("react", False, "cancelled", "cancelled"))
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert session.submitted == ["first", OTHER_BLOCK + "\n" + BLOCK]


async def test_during_a_turn_the_menu_still_completes_and_its_commands_run_at_once(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "first")
        await submit(pilot, "second")
        await pilot.press("/", "m", "o", "d", "tab")
        prompt = app.main_screen.prompt
        assert prompt.text == "/mode " and app.focused is prompt  # Tab took the row, focus stayed
        await pilot.press("a", "s", "enter", "enter")
        await settle(pilot)
        assert session.approval_mode == "ask"
        assert app.main_screen.queued.items == ["second"]
        await pilot.press("tab")  # nothing to complete: the next focus stop
        assert app.focused is app.main_screen.transcript


async def test_a_question_mark_on_the_empty_editor_opens_the_help_even_with_a_queue(app, session):
    from paicli_tui.ui.help.help_screen import HelpScreen

    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "first")
        await submit(pilot, "second")
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.main_screen.prompt.text == "" and app.main_screen.queued.items == ["second"]
