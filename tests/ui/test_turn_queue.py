"""While a turn runs (issue 13 item 3): input is queued and shown, can be
taken back to edit, is sent when the turn ends, and a cancel (Esc, Ctrl+C)
returns it to the input instead of sending it. Ctrl+C interrupts a turn;
only with nothing running does it quit, when pressed twice."""

from __future__ import annotations

from paicli_tui import events as ev
from tests.ui.conftest import settle, submit, transcript_text
from tests.ui.fake_session import Outcome

SIZE = (120, 36)


async def test_input_during_a_turn_is_queued_shown_and_sent_when_it_ends(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "first")
        await submit(pilot, "second")
        await submit(pilot, "/team third")
        await settle(pilot)
        screen = app.main_screen
        assert session.submitted == ["first"]
        assert screen.queued.items == ["second", "/team third"]
        assert screen.queued.display and "queued › second" in str(screen.queued.render())
        assert "› second" not in transcript_text(app)  # shown as queued, not as sent
        session.finish()
        await settle(pilot)
        assert session.submitted == ["first", "second"]
        assert "› second" in transcript_text(app)
        assert screen.queued.items == ["/team third"]
        session.finish()
        await settle(pilot)
        assert session.submitted == ["first", "second", "/team third"]
        assert not screen.queued.items and not screen.queued.display


async def test_a_command_of_the_screens_own_runs_at_once_during_a_turn(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "work")
        await submit(pilot, "/mode ask")
        await settle(pilot)
        assert session.approval_mode == "ask"
        assert not app.main_screen.queued.items


async def test_up_on_an_empty_input_takes_the_last_queued_input_back_to_edit(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "first")
        await submit(pilot, "second")
        await submit(pilot, "third")
        prompt = app.main_screen.prompt
        await pilot.press("up")
        assert prompt.value == "third"
        assert app.main_screen.queued.items == ["second"]
        await pilot.press("up")  # the input is not empty: its own history, the queue stays
        assert app.main_screen.queued.items == ["second"]


async def test_up_with_nothing_queued_is_still_history(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "earlier")
        session.finish()
        await settle(pilot)
        await pilot.press("up")
        assert app.main_screen.prompt.value == "earlier"


async def test_escape_cancels_and_returns_the_queue_to_the_input_unsent(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "first")
        await submit(pilot, "second")
        await pilot.press("escape")
        await pilot.pause()
        assert session.cancelled == 1
        assert app.main_screen.prompt.value == "second"
        assert not app.main_screen.queued.items
        session.bus.publish(ev.AgentFinished("react", "cancelled", "cancelled", "cancelled by the user"))
        session.finish(Outcome("react", False, "cancelled", "cancelled"))
        await settle(pilot)
        assert session.submitted == ["first"]  # the queued input was not sent
        lines = transcript_text(app).splitlines()
        assert lines[-1] == "cancelled"
        assert not any("failed" in line for line in lines)


async def test_ctrl_c_during_a_turn_cancels_it_and_does_not_arm_quit(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert session.cancelled == 1
        assert "Press Ctrl+C again to quit" not in app.notices and not app._exit
        session.finish(Outcome("react", False, "cancelled", "cancelled"))
        await settle(pilot)
        assert "cancelled" in transcript_text(app).splitlines()[-1]
        await submit(pilot, "again")  # a new turn: Ctrl+C cancels it too
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert session.cancelled == 2 and "Press Ctrl+C again to quit" not in app.notices
        session.finish(Outcome("react", False, "cancelled", "cancelled"))
        await settle(pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert "Press Ctrl+C again to quit" in app.notices and not app._exit
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app._exit


async def test_a_turn_that_does_not_stop_can_still_be_quit(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        await pilot.press("ctrl+c")  # cancels; the fake turn never stops
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert session.cancelled == 1
        assert "Press Ctrl+C again to quit" in app.notices and not app._exit
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app._exit


async def test_ctrl_c_twice_apart_does_not_quit(app, session, monkeypatch):
    from paicli_tui.ui import app as app_module

    monkeypatch.setattr(app_module, "QUIT_WINDOW_SECONDS", 0.05)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+c")
        await pilot.pause(0.2)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not app._exit


async def test_the_placeholder_says_what_enter_does(app, session):
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.main_screen.prompt
        assert prompt.placeholder == "Enter to send · auto mode: tools run; a command is risk-checked first"
        await pilot.press("shift+tab")
        await settle(pilot)
        assert prompt.placeholder == "Enter to send · plan mode: the planner writes a task graph first"
        await submit(pilot, "go")
        await settle(pilot)
        assert prompt.placeholder.startswith("Enter queues it")
        session.finish()
        await settle(pilot)
        assert prompt.placeholder.startswith("Enter to send · plan mode")
