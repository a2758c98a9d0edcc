"""Garbage collection is paused while the app starts and resumes, with the
start-up objects frozen out of later passes, once the first frame is drawn."""

from __future__ import annotations

import gc
import time

from paicli_tui import events as ev
from paicli_tui.ui import startup_gc
from tests.support.timing import scaled
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


async def test_full_collections_wait_for_a_quiet_moment_while_the_app_runs():
    thresholds = gc.get_threshold()
    full: list[int] = []

    def seen(phase: str, info: dict) -> None:
        if phase == "stop" and info["generation"] == 2:
            full.append(info["collected"])

    gc.callbacks.append(seen)
    try:
        app = RecordingApp(FakeSession(), theme="paicli-dark")
        app.quiet_seconds = 0.05
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            # No automatic full collection: the young ones never add up to one.
            assert gc.get_threshold()[:2] == thresholds[:2]
            assert gc.get_threshold()[2] > 10**9
            full.clear()
            app.pump.put(ev.AgentNote("agent", "a frame to paint"))
            deadline = time.monotonic() + scaled(10)
            while not full and time.monotonic() < deadline:
                await pilot.pause(0.05)
            assert full, "no full collection once the app was quiet"
            assert app._gc_timer is None  # nothing left waking an idle app
        assert gc.get_threshold() == thresholds
    finally:
        gc.callbacks.remove(seen)
        gc.unfreeze()
