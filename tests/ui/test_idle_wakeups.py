"""An idle app wakes for nothing (P-7.6): no frame is painted while no
event arrives, and an event published from an engine thread is painted
within a couple of frames, woken by the pump rather than found by polling.
The start-up path imports no run screen, review screen or approval dialog."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time

from paicli_tui import events as ev
from paicli_tui.ui.app import FRAME_SECONDS


async def test_an_idle_app_paints_no_frame_and_a_thread_event_wakes_it(app, session):
    painted: list[float] = []
    original = app._paint_frame

    async def counting() -> None:
        painted.append(time.monotonic())
        await original()

    app._paint_frame = counting  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.3)  # start-up's own events settle
        painted.clear()
        await pilot.pause(0.6)  # ~18 frames of a 30 Hz poll
        assert painted == []
        published = time.monotonic()
        thread = threading.Thread(target=session.bus.publish, args=(ev.ModelDelta("react", "c1", "content", "hi"),))
        thread.start()
        thread.join()
        deadline = time.monotonic() + 2.0
        while not painted and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        assert painted, "the event was never painted"
        assert painted[0] - published < 2 * FRAME_SECONDS + 0.25  # a frame, with room for a loaded machine
        assert len(app.pump) == 0


def test_the_first_screen_imports_no_run_review_or_approval_screen():
    code = (
        "import sys, json\n"
        "import paicli_tui.commands.tui, paicli_tui.session.live, paicli_tui.ui.app\n"
        "import paicli_tui.ui.review.plan_reviewer, paicli_tui.ui.bridge.approver\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60, check=True)
    loaded = json.loads(out.stdout)
    # The two ways in (which screen opens a run, the blocking plan review)
    # live beside their screens but import them only when a run opens.
    ways_in = {"paicli_tui.ui.run.run_screens", "paicli_tui.ui.review.plan_reviewer"}
    deferred = [m for m in loaded if m.startswith(("paicli_tui.ui.run.", "paicli_tui.ui.review.", "paicli_tui.ui.undo."))
                and m not in ways_in
                or m in ("paicli_tui.ui.approval.approval", "mcp", "paicli_tui.knowledge.codeindex")]
    assert deferred == []
