"""How the review screen looks (P-4.2, P-4.3) at 120×36 and 80×24."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList

from paicli_tui.ui.review.plan_review import PlanReviewScreen
from tests.ui.run_host import HostApp, make_plan, survey_plan

SIZES = [(120, 36), (80, 24)]


async def push_review(pilot) -> PlanReviewScreen:
    screen = PlanReviewScreen(survey_plan(), "Survey the project", on_decision=lambda decision: None)
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen


@pytest.mark.parametrize("size", SIZES)
def test_collapsed_review(snap_compare, size):
    assert snap_compare(HostApp(), terminal_size=size, run_before=push_review)


@pytest.mark.parametrize("size", SIZES)
def test_expanded_tree(snap_compare, size):
    async def run_before(pilot):
        await push_review(pilot)
        await pilot.press("ctrl+o")

    assert snap_compare(HostApp(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_diff_after_amendment(snap_compare, size):
    async def run_before(pilot):
        screen = await push_review(pilot)
        revised = make_plan(
            [
                {"id": "a", "description": "Read the README", "type": "FILE_READ"},
                {"id": "l", "description": "Check the licence", "type": "FILE_READ"},
                {"id": "b", "description": "List the source files", "type": "FILE_READ"},
                {"id": "c", "description": "Summarise the findings", "dependencies": ["a", "l", "b"]},
                {"id": "d", "description": "Run the unit tests", "type": "VERIFICATION", "dependencies": ["c"]},
            ]
        )
        screen.show_plan(revised, "Survey the project\nAmendment: also check the licence", previous=screen.plan)
        await pilot.pause()

    assert snap_compare(HostApp(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_invalid_edit(snap_compare, size):
    async def run_before(pilot):
        screen = await push_review(pilot)
        await pilot.press("ctrl+o")
        screen.task_tree.select_task("task_1")
        await pilot.press("d")
        options = pilot.app.screen.query_one(OptionList)
        options.highlighted = options.get_option_index("task_4")
        await pilot.press("enter")
        await pilot.pause()

    assert snap_compare(HostApp(), terminal_size=size, run_before=run_before)
