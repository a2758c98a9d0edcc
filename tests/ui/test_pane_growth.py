"""A pane growing while it streams repaints itself only: the screen is not
laid out again (that reflowed every widget on every frame), the pane
follows its tail, and its scrollbar's thumb shows the view at the end."""

from __future__ import annotations

from paicli_tui import events as ev
from tests.ui.run_host import screen_text
from tests.ui.test_run_panes import settled
from tests.ui.test_run_screen import host, open_run, start


async def test_a_growing_pane_lays_nothing_out_and_its_thumb_follows_the_tail():
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot)
        start(app.bus, "step_1", "worker-1")
        await settled(app, pilot, screen)
        reflows = []
        reflow = screen._compositor.reflow

        def counted(*args, **kwargs):
            reflows.append(args)
            return reflow(*args, **kwargs)

        screen._compositor.reflow = counted
        pane = screen.pane("worker-1")
        for number in range(60):
            app.bus.publish(ev.ModelDelta("worker-1", "c", "content", f"paragraph {number}\n\n"))
            if number % 6 == 5:
                await settled(app, pilot, screen)
        await settled(app, pilot, screen)
        assert pane.max_scroll_y > 0, "the pane never outgrew its height"
        assert "paragraph 59" in screen_text(app)
        assert pane.scroll_y == pane.max_scroll_y
        assert pane.vertical_scrollbar.position == pane.max_scroll_y
        assert reflows == []
