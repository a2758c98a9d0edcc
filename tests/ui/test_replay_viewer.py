"""The UI replay is a read-only viewer: the editor takes nothing (one line
says why, nothing is queued), the recorded requests are shown as the person
typed them, no busy hint, and Ctrl+C twice quits even over the replayed run
screen. A recorded pause (the person reading the plan) is said with its
length and Enter skips it; no mode badge, and the replayed run screen
offers no cancel (Esc goes back, the replay plays on). A real team run
recorded, then played into the real app."""

from __future__ import annotations

import json
import re
import threading

import pytest

from paicli_tui.session.replay import ReplaySession
from paicli_tui.ui.app import PaicliApp
from paicli_tui.ui.conversation.transcript_entries import NoteLine, UserEntry
from paicli_tui.ui.run.run_screen import RunScreen
from tests.support.timing import scaled
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
        player.join(timeout=scaled(5))


def _with_review_pause(path, seconds: float):
    """The same ledger as if the person had read the plan for ``seconds``
    before approving it: every line after the plan moves that much later."""
    return _with_pause_after(path, "plan_version", seconds)


def _with_pause_after(path, event: str, seconds: float):
    lines = path.read_text(encoding="utf-8").splitlines()
    out, after_plan = [], False
    for line in lines:
        data = json.loads(line)
        if after_plan and isinstance(data.get("ts"), (int, float)):
            data["ts"] += seconds
        after_plan = after_plan or data.get("event") == event
        out.append(json.dumps(data))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


async def test_a_recorded_plan_review_is_said_and_enter_skips_it(tmp_path):
    path, _, _ = _live_team_run(tmp_path)
    session = ReplaySession(_with_review_pause(path, 60.0))
    app = PaicliApp(session, remember_theme=False)
    async with app.run_test(size=(120, 36)) as pilot:
        player = threading.Thread(target=session.play, args=(1.0,), daemon=True)
        player.start()
        # 60 s and the recorded moment the plan took to go through (more on a loaded machine).
        said = re.compile(r"⏸ the person reviewed the plan for 6\d s · Enter skips the wait")
        await until(pilot, lambda: any(said.fullmatch(str(line.render()))
                                       for line in app.main_screen.transcript.query(NoteLine)),
                    "the recorded review said")
        await pilot.press("enter")
        await until(pilot, lambda: session.finished.is_set(), "the rest of the replay, without the minute", seconds=20)
        session.cancel()
        player.join(timeout=scaled(5))


async def test_a_replay_shows_no_mode_badge_and_its_run_screen_no_cancel(tmp_path):
    from paicli_tui.ui.common.dialogs import Confirm

    path, _, _ = _live_team_run(tmp_path)
    session = ReplaySession(_with_pause_after(path, "dispatch", 60.0))  # the run stays on screen, playing
    app = PaicliApp(session, remember_theme=False)
    async with app.run_test(size=(120, 36)) as pilot:
        assert not app.main_screen.query_one("#status-mode").display  # no AUTO: a replay has no mode
        player = threading.Thread(target=session.play, args=(1.0,), daemon=True)
        player.start()
        try:
            await until(pilot, lambda: isinstance(app.screen, RunScreen), "the run screen")
            run = app.screen
            await pilot.pause(0.2)
            assert not run.model.finished
            hints = str(run.query_one("#run-hints").render())
            assert "cancel" not in hints and "[Esc] back" in hints
            await pilot.press("c")
            await pilot.pause(0.2)
            assert not isinstance(app.screen, Confirm)
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is app.main_screen, "back to the transcript")
            assert not session.finished.is_set()  # it plays on
        finally:
            session.cancel()
            player.join(timeout=scaled(5))


async def test_escape_on_the_transcript_leaves_the_replay_playing(tmp_path):
    path, _, _ = _live_team_run(tmp_path)
    session = ReplaySession(_with_review_pause(path, 60.0))
    app = PaicliApp(session, remember_theme=False)
    async with app.run_test(size=(120, 36)) as pilot:
        player = threading.Thread(target=session.play, args=(1.0,), daemon=True)
        player.start()
        try:
            await until(pilot, lambda: session.busy, "the replay playing")
            await pilot.press("escape")
            await pilot.pause(0.2)
            assert not session.stopped and session.busy
        finally:
            session.cancel()
            player.join(timeout=scaled(5))
