"""An idle app runs no timer: the input's cursor blinks for a while after
the last key, then stays lit; a key makes it blink again. (Textual is
pinned: a timer's ``_active`` event is how it pauses.)"""

from __future__ import annotations

from paicli_tui.ui.conversation import prompt_editor
from tests.support.timing import scaled
from tests.ui.conftest import settle
from tests.ui.test_run_screen_flow import until

SIZE = (120, 36)


def running_timers(app) -> list[str]:
    nodes = [app, *app.screen_stack, *app.screen.walk_children()]
    return [f"{type(node).__name__}.{timer.name}" for node in nodes for timer in list(node._timers)
            if timer._active.is_set() and timer._task is not None and not timer._task.done()]


async def test_after_the_cursor_rests_no_timer_runs_until_a_key(app, monkeypatch):
    # Long enough that the blink is still on after a pause on a loaded machine.
    monkeypatch.setattr(prompt_editor, "CURSOR_BLINK_S", scaled(0.5))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        prompt = app.main_screen.prompt
        await until(pilot, lambda: not prompt.cursor_blink, "the cursor to rest")
        await pilot.pause()
        assert running_timers(app) == []
        await pilot.press("a")
        await pilot.pause()
        assert prompt.cursor_blink and running_timers(app)
        await until(pilot, lambda: not prompt.cursor_blink, "the cursor to rest again")
        await pilot.pause()
        assert running_timers(app) == []
