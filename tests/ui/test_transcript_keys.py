"""The transcript (issue 13 item 4): scroll keys from the input, Esc back to
the input, a Tab order that never strands the person, copy, /copy, and every
run's answer shown whole."""

from __future__ import annotations

from paicli_tui import events as ev
from paicli_tui.ui.common.markdown_text import MarkdownText
from paicli_tui.ui.conversation.transcript import Transcript
from tests.ui.conftest import settle, submit, transcript_text
from tests.ui.fake_session import Outcome

SIZE = (120, 36)
LONG_ANSWER = "## Conclusion\n\n" + "\n\n".join(f"Paragraph {i}: " + "every word matters here. " * 8 for i in range(30))


async def _fill(pilot, session, notes: int = 120) -> Transcript:
    for i in range(notes):
        session.bus.publish(ev.AgentNote("react", f"note {i}"))
    await settle(pilot)
    await pilot.pause()
    return pilot.app.main_screen.transcript


async def test_page_keys_scroll_the_transcript_while_the_input_keeps_focus(app, session):
    async with app.run_test(size=SIZE) as pilot:
        transcript = await _fill(pilot, session)
        prompt = app.main_screen.prompt
        assert transcript.scroll_y == transcript.max_scroll_y > 0
        await pilot.press("pageup")
        await pilot.pause()
        after_one = transcript.scroll_y
        assert after_one < transcript.max_scroll_y
        await pilot.press("shift+pageup")
        await pilot.pause()
        assert transcript.scroll_y < after_one
        await pilot.press("ctrl+home")
        await pilot.pause()
        assert transcript.scroll_y == 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert transcript.scroll_y > 0
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert transcript.scroll_y == transcript.max_scroll_y
        assert app.focused is prompt


async def test_scrolled_up_the_transcript_stays_put_and_ctrl_end_follows_again(app, session):
    async with app.run_test(size=SIZE) as pilot:
        transcript = await _fill(pilot, session)
        await pilot.press("ctrl+home")
        await pilot.pause()
        await _fill(pilot, session, 5)
        assert transcript.scroll_y == 0  # reading old text is not interrupted
        await pilot.press("ctrl+end")
        await _fill(pilot, session, 5)
        assert transcript.scroll_y == transcript.max_scroll_y


async def test_tab_cycles_input_and_transcript_and_never_jumps_to_the_top(app, session):
    async with app.run_test(size=SIZE) as pilot:
        session.bus.publish(ev.ToolCallStarted("react", "t1", "read_file", '{"path": "a.py"}'))
        session.bus.publish(ev.ToolCallFinished("react", "t1", "read_file", True, "1 line", "x"))
        transcript = await _fill(pilot, session)
        bottom = transcript.scroll_y
        prompt = app.main_screen.prompt
        await pilot.press("tab")
        await pilot.pause()
        assert app.focused is transcript
        assert transcript.scroll_y == bottom
        await pilot.press("up")  # the transcript's own keys work there
        await pilot.pause()
        assert transcript.scroll_y < bottom
        await pilot.press("tab")
        await pilot.pause()
        assert app.focused is prompt


async def test_escape_returns_focus_to_the_input_and_typing_in_the_transcript_goes_there(app, session):
    async with app.run_test(size=SIZE) as pilot:
        transcript = app.main_screen.transcript
        prompt = app.main_screen.prompt
        transcript.focus()
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is prompt
        assert session.cancelled == 0  # Esc away from the input only comes back
        transcript.focus()
        await pilot.press("h", "i")
        await pilot.pause()
        assert app.focused is prompt
        assert prompt.value == "hi"


async def test_copy_command_copies_the_last_answer_and_says_so(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/copy")
        await settle(pilot)
        assert "nothing to copy yet" in transcript_text(app)
        session.bus.publish(ev.AgentFinished("react", "final", LONG_ANSWER))
        await settle(pilot)
        await submit(pilot, "/copy")
        await settle(pilot)
        assert app.clipboard == LONG_ANSWER
        assert transcript_text(app).splitlines()[-1] == f"copied the last answer ({len(LONG_ANSWER):,} characters)"


async def test_y_in_the_transcript_copies_a_selection_else_the_last_answer(app, session):
    async with app.run_test(size=SIZE) as pilot:
        session.bus.publish(ev.AgentFinished("react", "final", "the answer"))
        session.bus.publish(ev.AgentNote("react", "a note to select"))
        await settle(pilot)
        transcript = app.main_screen.transcript
        transcript.focus()
        await pilot.press("y")
        assert app.clipboard == "the answer"
        note = transcript.children[-1]
        from textual.selection import Selection

        app.main_screen.selections = {note: Selection(None, None)}  # what a mouse drag over it makes
        await pilot.pause()
        await pilot.press("y")
        assert app.clipboard == "a note to select"


async def test_ctrl_c_with_a_selection_copies_and_cancels_nothing(app, session):
    from textual.selection import Selection

    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        session.bus.publish(ev.AgentNote("react", "select me"))
        await settle(pilot)
        note = app.main_screen.transcript.children[-1]
        app.main_screen.selections = {note: Selection(None, None)}
        await pilot.pause()
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.clipboard == "select me"
        assert session.cancelled == 0


async def test_a_plan_runs_answer_is_shown_whole_as_markdown(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/plan conclude")
        summary = "Plan COMPLETED: 1 task — 1 completed\n✅ task_1: conclude — " + LONG_ANSWER[:120] + "…"
        session.bus.publish(ev.RunFinished("engine", "COMPLETED", summary, {"completed": 1}, LONG_ANSWER))
        session.finish(Outcome("plan", True, "COMPLETED", summary))
        await settle(pilot)
        answers = [m for m in app.main_screen.transcript.query(MarkdownText) if m.source == LONG_ANSWER]
        assert len(answers) == 1
        assert "Paragraph 29" in answers[0].source and "…" not in answers[0].source
        assert app.main_screen.painter.last_answer == LONG_ANSWER


async def test_a_react_answer_that_was_not_streamed_is_shown_whole(app, session):
    async with app.run_test(size=SIZE) as pilot:
        session.bus.publish(ev.AgentFinished("react", "final", LONG_ANSWER))
        await settle(pilot)
        assert [m.source for m in app.main_screen.transcript.query(MarkdownText)] == [LONG_ANSWER]
