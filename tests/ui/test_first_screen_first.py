"""The first screen draws before the session exists: the session is built
in a thread after the first frame, what is typed meanwhile waits in the
queue and is sent once it is ready, and Shift+Tab pressed meanwhile holds."""

from __future__ import annotations

import threading

from paicli_tui.session.starting import STARTING_HINT, StartingSession
from tests.ui.conftest import RecordingApp, settle, submit, transcript_text
from tests.ui.fake_session import FakeSession

SIZE = (120, 36)


def slow_start(real: FakeSession):
    release = threading.Event()
    calls: list[str] = []

    def start() -> FakeSession:
        calls.append(threading.current_thread().name)
        assert release.wait(30), "the test never let the session start"
        return real

    return start, release, calls


async def test_the_screen_takes_input_before_the_session_is_built_and_sends_it_after():
    real = FakeSession()
    start, release, calls = slow_start(real)
    app = RecordingApp(StartingSession(real.settings, real.workspace, start), theme="paicli-dark")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.main_screen
        assert screen.starting and calls, "the session's start did not begin after the first frame"
        assert calls[0] != threading.main_thread().name
        assert screen.prompt.placeholder == STARTING_HINT
        await submit(pilot, "hello")
        await pilot.press("shift+tab")
        await settle(pilot)
        assert screen.queued.items == ["hello"]
        assert real.submitted == []
        release.set()
        for _ in range(100):
            await settle(pilot)
            if real.submitted:
                break
        assert app.session is real and not screen.starting
        assert real.submitted == ["/plan hello"]  # sent in the mode chosen meanwhile
        assert real.approval_mode == "plan"  # the Shift+Tab pressed while it started
        assert "› hello" in transcript_text(app)


async def test_a_session_that_cannot_start_ends_the_app_with_its_reason():
    def start():
        raise ValueError("base_url is not a URL: 'nope'")

    real = FakeSession()
    app = RecordingApp(StartingSession(real.settings, real.workspace, start), theme="paicli-dark")
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(50):
            await pilot.pause()
            if app.start_error:
                break
    assert app.start_error == "base_url is not a URL: 'nope'"
    assert app.return_code == 2
