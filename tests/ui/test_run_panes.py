"""Worker panes while workers stream: a resize keeps every pane's text as
if the screen had always had that size, a pane's first row is its task's
heading, and z zooms a pane at its tail with a hint line, Tab moving the
zoom to the next pane."""

from __future__ import annotations

import time

from paicli_tui import events as ev
from tests.support.timing import scaled
from tests.ui.run_host import screen_text
from tests.ui.test_run_screen import frame, host, open_run, start

ANSWER = (
    "## Findings\n\n"
    "The renderer lives in `invoicer/render.py` and the command line in `invoicer/cli.py`.\n\n"
    "- item 1: `invoicer/render.py` formats the totals\n"
    "- item 2: `invoicer/cli.py` reads the arguments\n"
    "- item 3: `invoicer/models.py` holds the invoice\n\n"
    "```python\ndef render(invoice):\n    return str(invoice)\n```\n\n"
    "Each module is small; the tests cover the renderer and the totals. "
) * 3
SIZES = [(120, 36), (80, 24), (200, 50), (100, 30)]


def pane_rows(app, pane) -> list[str]:
    """The rows the terminal shows inside ``pane``'s border."""
    region = pane.scrollable_content_region
    lines = screen_text(app).splitlines()
    return [lines[y][region.x:region.right].rstrip() for y in range(region.y, region.bottom)]


async def settled(app, pilot, screen) -> None:
    """Frames until every pane painted what it was told."""
    deadline = time.monotonic() + scaled(10)
    await frame(app, pilot)
    while any(pane.pending for pane in screen.panes) and time.monotonic() < deadline:
        await pilot.pause(0.05)
    await pilot.pause()


async def stream(app, pilot, sizes: list[tuple[int, int]]) -> None:
    """Both workers stream ``ANSWER`` in 24-character chunks, a frame per
    chunk, the terminal taking the next of ``sizes`` every 5 frames."""
    chunks = [ANSWER[i:i + 24] for i in range(0, len(ANSWER), 24)]
    for number, chunk in enumerate(chunks):
        for worker in ("worker-1", "worker-2"):
            app.bus.publish(ev.ModelDelta(worker, "c", "content", chunk))
        await frame(app, pilot)
        if number % 5 == 4 and len(sizes) > 1:
            await pilot.resize_terminal(*sizes[(number // 5) % len(sizes)])
            await pilot.pause()


async def painted_after(sizes: list[tuple[int, int]]) -> dict[str, list[str]]:
    app = host()
    async with app.run_test(size=sizes[0]) as pilot:
        screen = await open_run(app, pilot)
        start(app.bus, "step_1", "worker-1")
        start(app.bus, "step_2", "worker-2")
        await frame(app, pilot)
        await stream(app, pilot, sizes)
        await pilot.resize_terminal(*sizes[-1])
        await settled(app, pilot, screen)
        return {pane.worker: pane_rows(app, pane) for pane in screen.panes}


async def test_resizing_while_workers_stream_keeps_every_panes_text():
    resized = await painted_after(SIZES * 2 + [(120, 36)])
    never = await painted_after([(120, 36)])
    for worker in ("worker-1", "worker-2"):
        assert resized[worker] == never[worker], f"{worker} differs after resizes"
        assert any("Each module is small" in row for row in resized[worker])


async def test_a_panes_first_row_is_its_tasks_heading_from_the_first_frame():
    app = host()
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_run(app, pilot)
        seen: list[list[str]] = []
        for step, worker in (("step_1", "worker-1"), ("step_2", "worker-2")):
            start(app.bus, step, worker)
            app.bus.publish(ev.ModelDelta(worker, "c", "content", "Request: read the README."))
        for size in [(200, 50), (120, 36), (200, 50)]:
            await pilot.resize_terminal(*size)
            for text in ("\n\n- first point", "\n- second point", "\n\nDone."):
                for worker in ("worker-1", "worker-2"):
                    app.bus.publish(ev.ModelDelta(worker, "c", "content", text))
                await settled(app, pilot, screen)
                for pane in screen.panes:
                    rows = [row for row in pane_rows(app, pane) if row.strip()]
                    seen.append(rows)
                    step = "step_1" if pane.worker == "worker-1" else "step_2"
                    assert rows and rows[0].startswith(f"▶ {step} · attempt 1"), rows[:3]
        assert all(any("Request: read the README." in row for row in rows[1:3]) for rows in seen)


async def test_z_zooms_a_pane_at_its_tail_with_a_hint_and_tab_moves_the_zoom():
    app = host()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(app, pilot)
        start(app.bus, "step_1", "worker-1")
        start(app.bus, "step_2", "worker-2")
        for worker in ("worker-1", "worker-2"):
            text = "".join(f"{worker} paragraph {i}\n\n" for i in range(40))
            app.bus.publish(ev.ModelDelta(worker, "c", "content", text))
        await settled(app, pilot, screen)
        one, two = screen.pane("worker-1"), screen.pane("worker-2")
        one.focus()
        await pilot.press("z")
        await pilot.pause()
        assert screen.maximized is one
        shown = screen_text(app).splitlines()
        assert shown[0].startswith("╭─ worker-1 · step_1")  # the whole pane, its title first
        assert "worker-1 paragraph 39" in "\n".join(shown)  # at the tail
        assert "Tab next pane" in shown[-1] and "z back" in shown[-1]  # the hint line
        await pilot.press("tab")
        await pilot.pause()
        assert screen.maximized is two and screen.focused is two
        shown = screen_text(app)
        assert "worker-2 paragraph 39" in shown and "worker-1 paragraph" not in shown
        await pilot.press("z")
        await pilot.pause()
        assert screen.maximized is None and "Tab next pane" not in screen_text(app)
