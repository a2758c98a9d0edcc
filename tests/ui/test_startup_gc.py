"""Garbage collection is paused while the app starts and resumes, with the
start-up objects frozen out of later passes, once the first frame is drawn."""

from __future__ import annotations

import gc
import time
import weakref

import pytest

from paicli_tui import events as ev
from paicli_tui.ui import startup_gc
from paicli_tui.ui.conversation import prompt_editor
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


def test_start_up_objects_freed_later_do_not_put_the_deep_collection_off(monkeypatch):
    monkeypatch.setattr(startup_gc, "DEEP_AT_ONCE_FROZEN", 100)
    gc.unfreeze()
    try:
        start_up = [[] for _ in range(10_000)]
        startup_gc.freeze_and_resume()
        del start_up  # freed by reference counting: they leave the frozen objects
        made_since = [[] for _ in range(200)]
        startup_gc.collect_full()
        assert startup_gc.deep_overdue(), f"{len(made_since)} objects frozen since: the deep collection is due"
        startup_gc.collect_deep()
        assert not startup_gc.deep_overdue()
    finally:
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


class _Cycle:
    """Garbage only the collector can free: it refers to itself."""

    def __init__(self) -> None:
        self.me = self


async def _wait_for(pilot, condition, seconds: float = 10) -> bool:
    deadline = time.monotonic() + scaled(seconds)
    while not condition() and time.monotonic() < deadline:
        await pilot.pause(0.05)
    return condition()


@pytest.fixture
def own_start(monkeypatch) -> list[bool]:
    """This test's app starts from a clean collector state, and the list
    fills once its own start-up freeze ran. An earlier app in the same
    worker may have been torn down before its start-up freeze (which then
    held collections for good) and long ago, so that full collections were
    "overdue" at every frame and no quiet moment was ever waited for."""
    startup_gc.release_full_collections()
    frozen: list[bool] = []
    freeze = startup_gc.freeze_and_resume

    def recorded() -> None:
        freeze()
        frozen.append(True)

    monkeypatch.setattr(startup_gc, "freeze_and_resume", recorded)
    return frozen


async def test_a_quiet_collection_freezes_its_survivors_and_a_deep_one_frees_their_cycles(monkeypatch, own_start):
    monkeypatch.setattr(startup_gc, "DEEP_AFTER_FROZEN", 1)
    try:
        app = RecordingApp(FakeSession(), theme="paicli-dark")
        app.quiet_seconds = 0.05
        app.deep_quiet_seconds = 3600  # not before the cycle is dropped, however slow the machine
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            # The start-up freeze comes after the first frame: on a loaded machine, after settle.
            assert await _wait_for(pilot, lambda: bool(own_start))
            kept = [_Cycle()]
            gone = weakref.ref(kept[0])
            frozen_before = gc.get_freeze_count()
            app.pump.put(ev.AgentNote("agent", "a frame to paint"))
            # The quiet collection left the cycle alive (it was referred to) and frozen.
            assert await _wait_for(pilot, lambda: gc.get_freeze_count() > frozen_before)
            assert app._deep_gc_timer is not None
            kept.clear()
            gc.collect()
            assert gone() is not None, "a frozen cycle was walked by an ordinary collection"
            # Its timer due: once nothing has been drawn for deep_quiet_seconds, the
            # deep collection walks the frozen objects too.
            app.deep_quiet_seconds = 0.3
            app._deep_gc_timer.stop()
            app._collect_deep_if_idle()
            assert await _wait_for(pilot, lambda: gone() is None), "the deep collection never freed the cycle"
            assert app._deep_gc_timer is None
    finally:
        gc.unfreeze()


async def test_the_deep_collection_waits_while_the_screen_keeps_changing(monkeypatch, own_start):
    monkeypatch.setattr(startup_gc, "DEEP_AFTER_FROZEN", 1)
    monkeypatch.setattr(prompt_editor, "CURSOR_BLINK_S", scaled(0.5))  # the blink draws too
    deep: list[float] = []
    # What it records: how long nothing had been drawn when it ran.
    monkeypatch.setattr(startup_gc, "collect_deep", lambda: deep.append(time.monotonic() - app._last_display))
    try:
        app = RecordingApp(FakeSession(), theme="paicli-dark")
        app.quiet_seconds = 0.05
        app.deep_quiet_seconds = scaled(1.0)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            app.pump.put(ev.AgentNote("agent", "a frame to paint"))
            assert await _wait_for(pilot, lambda: app._deep_gc_timer is not None)
            typed_until = time.monotonic() + 3 * app.deep_quiet_seconds
            while time.monotonic() < typed_until:  # a person typing: a key drawn every few tenths
                await pilot.press("x")
                await pilot.pause(0.2)
            assert not deep, "the deep collection ran while keys were being drawn"
            assert await _wait_for(pilot, lambda: bool(deep), 10)
            assert deep[0] >= app.deep_quiet_seconds * 0.99
    finally:
        gc.unfreeze()


async def test_the_deep_collection_runs_at_the_next_quiet_moment_once_far_too_much_is_frozen(monkeypatch, own_start):
    try:
        app = RecordingApp(FakeSession(), theme="paicli-dark")
        app.quiet_seconds = 0.05
        app.deep_quiet_seconds = 3600  # the person never steps away
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            # The start-up freeze comes after the first frame: on a loaded machine, after settle.
            assert await _wait_for(pilot, lambda: bool(own_start))
            kept = [_Cycle()]
            gone = weakref.ref(kept[0])
            frozen_before = gc.get_freeze_count()
            app.pump.put(ev.AgentNote("agent", "a frame to paint"))
            assert await _wait_for(pilot, lambda: gc.get_freeze_count() > frozen_before)
            kept.clear()
            monkeypatch.setattr(startup_gc, "DEEP_AT_ONCE_FROZEN", 1)
            app.pump.put(ev.AgentNote("agent", "another frame"))
            assert await _wait_for(pilot, lambda: gone() is None), "the frozen cycle outlived a quiet moment"
    finally:
        gc.unfreeze()


async def test_a_start_up_freeze_due_after_the_app_closed_holds_nothing_and_resumes_the_collector():
    startup_gc.release_full_collections()
    app = RecordingApp(FakeSession(), theme="paicli-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
    # What a freeze queued by call_after_refresh meets when the app closed first.
    startup_gc.pause()
    try:
        app._freeze_startup_objects()
        assert gc.isenabled(), "the collector stayed paused after the app closed"
        assert not startup_gc.holding(), "full collections held by an app that is gone"
    finally:
        gc.enable()
        startup_gc.release_full_collections()
        gc.unfreeze()


async def test_a_full_collection_waits_for_quiet_after_a_long_frame_not_after_its_start(monkeypatch, own_start):
    """A collection timer that came due during a frame longer than the
    quiet time ran as soon as the frame ended (it measured from the frame's
    start): a run's end once met a 1.1 s frame then a 0.7 s collection."""
    started: list[float] = []
    gc.callbacks.append(lambda phase, info: phase == "start" and info["generation"] == 2
                        and started.append(time.monotonic()))
    try:
        app = RecordingApp(FakeSession(), theme="paicli-dark")
        app.quiet_seconds = quiet = scaled(0.2)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            assert await _wait_for(pilot, lambda: own_start and app._gc_timer is None)
            paint = app.main_screen.paint

            async def slow_paint(items):
                await paint(items)
                time.sleep(1.5 * quiet)

            monkeypatch.setattr(app.main_screen, "paint", slow_paint)
            app.pump.put(ev.AgentNote("agent", "a long frame"))
            started.clear()
            await app.drain_events()
            ended = time.monotonic()
            app._collect_if_quiet()  # what a collection timer that came due meanwhile does
            assert not started, "collected the moment the long frame ended"
            assert app._gc_timer is not None, "no collection waiting for the quiet after it"
            assert await _wait_for(pilot, lambda: started)
            assert started[0] - ended >= 0.9 * quiet
    finally:
        gc.callbacks.pop()
        gc.unfreeze()
