"""Sending while scrolled up follows again; entries arriving below while
the person reads above show a "new below" marker; a command is echoed as
typed, not as the keys of the screen it opens."""

from __future__ import annotations

from paicli_tui.ui.conversation.new_below import NewBelow
from paicli_tui.ui.conversation.transcript_entries import NoteLine, UserEntry
from tests.ui.conftest import settle, submit

SIZE = (80, 24)


async def _scrolled_up(pilot, app):
    transcript = app.main_screen.transcript
    for index in range(40):
        await transcript.add_line(f"line {index}")
    await settle(pilot)
    await pilot.press("pageup")
    await pilot.pause()
    assert transcript.scroll_y < transcript.max_scroll_y and not transcript.following
    return transcript


async def test_sending_while_scrolled_up_follows_the_prompt(app, session):
    async with app.run_test(size=SIZE) as pilot:
        transcript = await _scrolled_up(pilot, app)
        await submit(pilot, "hello")
        await settle(pilot)
        assert session.submitted == ["hello"]
        assert transcript.following and transcript.scroll_y == transcript.max_scroll_y
        entry = transcript.query(UserEntry).last()
        assert "hello" in str(entry.render()) and entry.region.intersection(transcript.region).height > 0
        await transcript.add_line("the answer")
        await settle(pilot)
        assert transcript.query(NoteLine).last().region.intersection(transcript.region).height > 0


async def test_new_entries_below_show_a_marker_until_the_end_is_reached(app, session):
    async with app.run_test(size=SIZE) as pilot:
        transcript = await _scrolled_up(pilot, app)
        marker = app.main_screen.query_one(NewBelow)
        assert not marker.display
        await transcript.add_line("arrived while reading")
        await settle(pilot)
        assert marker.display and "new below" in str(marker.render())
        await pilot.press("ctrl+end")
        await settle(pilot)
        assert not marker.display and transcript.following


async def test_a_command_that_opens_a_screen_is_echoed_as_typed(app, session):
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "/help")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        entries = [str(entry.render()) for entry in app.main_screen.transcript.query(UserEntry)]
        assert any("/help" in text for text in entries)
        notes = " ".join(str(line.render()) for line in app.main_screen.transcript.query(NoteLine))
        assert "esc closes" not in notes and "opens it again" not in notes
