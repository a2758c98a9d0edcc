"""Garbage collection is paused while the app starts and resumes, with the
start-up objects frozen out of later passes, once the first frame is drawn."""

from __future__ import annotations

import gc

from paicli_tui.ui import startup_gc
from tests.ui.conftest import RecordingApp, settle
from tests.ui.fake_session import FakeSession


async def test_collection_paused_at_start_resumes_after_the_first_frame():
    assert gc.isenabled()
    gc.unfreeze()
    startup_gc.pause()
    try:
        assert not gc.isenabled()
        app = RecordingApp(FakeSession(), theme="paicli-dark")
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            assert gc.isenabled()
            assert gc.get_freeze_count() > 0
    finally:
        gc.enable()
        gc.unfreeze()


def test_a_collector_someone_else_disabled_stays_disabled():
    gc.disable()
    try:
        startup_gc.pause()
        startup_gc.freeze_and_resume()
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()
