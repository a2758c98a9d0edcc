"""Small things a new user meets: the Keys panel closes on Esc, key names
read as keys ("]", not "Right_square_bracket"), a task added under a
FILE_READ task is a FILE_READ task."""

from __future__ import annotations

from paicli_tui.plan.model import Plan, Task, TaskType
from paicli_tui.ui.help.key_table import key_label
from paicli_tui.ui.review.plan_edit_state import PlanEditState
from tests.ui.conftest import settle


def test_key_names_read_as_the_keys():
    assert key_label("right_square_bracket") == "]"
    assert key_label("left_square_bracket") == "["
    assert key_label("ctrl+p") == "Ctrl+P" and key_label("escape") == "Esc"
    assert key_label("space") != " "


def test_a_task_added_after_another_takes_its_type():
    plan = Plan(tasks=[Task("task_1", "read it", TaskType.FILE_READ), Task("task_2", "think", TaskType.ANALYSIS)])
    state = PlanEditState.from_plan(plan)
    added = state.add_task("task_1", "read the other file")
    assert state.task(added).type == "FILE_READ"
    assert state.task(state.add_task(None, "first")).type == "ANALYSIS"


async def test_esc_closes_the_keys_panel_and_does_nothing_else(app, session):
    async with app.run_test(size=(120, 36)) as pilot:
        app.action_show_help_panel()
        await settle(pilot)
        assert app.screen.query("HelpPanel")
        await pilot.press("escape")
        await settle(pilot)
        assert not app.screen.query("HelpPanel") and app.screen is app.main_screen
