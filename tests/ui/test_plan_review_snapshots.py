"""How the review screen looks (P-4.2, P-4.3, issue 14 item 6) at 80×24,
120×36 and 200×50, drawn with the product's app.tcss: collapsed, the graph
with its cursor, an invalid edit with the problem beside the task, the
discard-edits prompt, a dialog over the graph, and an amendment's diff."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList

from paicli_tui.ui.review.plan_review import PlanReviewScreen
from tests.ui.review_host import ReviewHost
from tests.ui.run_host import make_plan, survey_plan

SIZES = [(80, 24), (120, 36), (200, 50)]
SIZE_IDS = ["80x24", "120x36", "200x50"]
sizes = pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)


async def push_review(pilot) -> PlanReviewScreen:
    screen = PlanReviewScreen(survey_plan(), "Survey the project", on_decision=lambda decision: None)
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen


async def make_a_cycle(pilot) -> PlanReviewScreen:
    screen = await push_review(pilot)
    await pilot.press("ctrl+o")
    screen.task_tree.select_task("task_1")
    await pilot.press("d")
    options = pilot.app.screen.query_one(OptionList)
    options.highlighted = options.get_option_index("task_4")
    await pilot.press("enter")
    await pilot.pause()
    return screen


@sizes
def test_collapsed_review(snap_compare, size):
    assert snap_compare(ReviewHost(), terminal_size=size, run_before=push_review)


@sizes
def test_expanded_tree_with_the_cursor_on_the_first_task(snap_compare, size):
    async def run_before(pilot):
        await push_review(pilot)
        await pilot.press("ctrl+o")

    assert snap_compare(ReviewHost(), terminal_size=size, run_before=run_before)


@sizes
def test_invalid_edit_with_the_problem_beside_the_task(snap_compare, size):
    async def run_before(pilot):
        await make_a_cycle(pilot)
        await pilot.press("enter")  # refused: the panel says "Cannot run"
        await pilot.pause()

    assert snap_compare(ReviewHost(), terminal_size=size, run_before=run_before)


@sizes
def test_discard_edits_prompt(snap_compare, size):
    async def run_before(pilot):
        screen = await push_review(pilot)
        await pilot.press("ctrl+o")
        screen.task_tree.select_task("task_2")
        await pilot.press("J", "escape", "escape")
        await pilot.pause()

    assert snap_compare(ReviewHost(), terminal_size=size, run_before=run_before)


@sizes
def test_a_dialog_over_the_graph(snap_compare, size):
    async def run_before(pilot):
        screen = await push_review(pilot)
        await pilot.press("ctrl+o")
        screen.task_tree.select_task("task_3")
        await pilot.press("t")
        await pilot.pause()

    assert snap_compare(ReviewHost(), terminal_size=size, run_before=run_before)


@sizes
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

    assert snap_compare(ReviewHost(), terminal_size=size, run_before=run_before)
