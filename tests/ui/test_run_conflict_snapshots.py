"""How a merge conflict looks on the run screen (the pane title and border,
the task tree, the timeline) and how a task's diff looks in its details,
at 80×24, 120×36 and 200×50, over real git (tests/ui/conflict_run.py)."""

from __future__ import annotations

import pytest

from tests.ui.conflict_run import host, settle, step_2_in_conflict

SIZES = [(80, 24), (120, 36), (200, 50)]
IDS = ["80x24", "120x36", "200x50"]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_conflict_on_the_run_screen(snap_compare, size, tmp_path):
    async def run_before(pilot):
        await step_2_in_conflict(pilot, tmp_path)

    assert snap_compare(host(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_conflict_in_the_timeline(snap_compare, size, tmp_path):
    async def run_before(pilot):
        await step_2_in_conflict(pilot, tmp_path)
        await pilot.press("g")
        await pilot.pause()

    assert snap_compare(host(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_tasks_diff_in_its_details(snap_compare, size, tmp_path):
    async def run_before(pilot):
        state = await step_2_in_conflict(pilot, tmp_path)
        state.screen.open_details("step_2")
        await settle(pilot)

    assert snap_compare(host(), terminal_size=size, run_before=run_before)
