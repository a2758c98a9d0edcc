"""The UI replay is a read-only viewer: the editor takes nothing (one line
says why, nothing is queued), the recorded requests are shown as the person
typed them, no busy hint, and Ctrl+C twice quits even over the replayed run
screen. A real team run recorded, then played into the real app."""

from __future__ import annotations

import threading

import pytest

from paicli_tui.session.replay import ReplaySession
from paicli_tui.ui.app import PaicliApp
from paicli_tui.ui.conversation.transcript_entries import NoteLine, UserEntry
from paicli_tui.ui.run.run_screen import RunScreen
from tests.test_records_replay_ui import _live_team_run
from tests.ui.test_run_screen_flow import until

pytestmark = pytest.mark.timeout(60)


async def test_typing_in_a_replay_is_refused_once_and_never_queued(tmp_path):
    path, _, _ = _live_team_run(tmp_path)
    session = ReplaySession(path)
    app = PaicliApp(session, remember_theme=False)
    async with app.run_test(size=(120, 36)) as pilot:
        main = app.main_screen
        await pilot.pause(0.1)
        assert main.prompt.read_only and "read-only" in main.prompt.placeholder
        await pilot.press(*"hello", "enter", *"again", "enter")
        await pilot.pause(0.2)
        said = [str(line.render()) for line in main.transcript.query(NoteLine) if "takes no input" in str(line.render())]
        assert len(said) == 1
        assert not main.queued.items and main.prompt.text == ""
        assert "working" not in str(main.prompt.border_title or "")


async def test_a_replay_shows_the_recorded_request_and_ctrl_c_twice_quits_over_the_run_screen(tmp_path):
    path, _, _ = _live_team_run(tmp_path)
    session = ReplaySession(path)
    app = PaicliApp(session, remember_theme=False)
    async with app.run_test(size=(120, 36)) as pilot:
        player = threading.Thread(target=session.play, args=(None,), daemon=True)
        player.start()
        await until(pilot, lambda: session.finished.is_set() and isinstance(app.screen, RunScreen), "the replayed run")
        await pilot.pause(0.2)
        typed = [str(entry.render()) for entry in app.main_screen.transcript.query(UserEntry)]
        assert any("/team A then B, and C" in text for text in typed)
        await pilot.press("ctrl+c", "ctrl+c")
        await pilot.pause(0.2)
        assert app.return_code is not None or not app.is_running
        player.join(timeout=5)
