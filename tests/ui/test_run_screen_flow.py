"""Whole flows through the real Session and the offline demo model: the
engine thread asks the UI's PlanReviewer, the review screen answers, and
the run screen paints the run from the real event path."""

from __future__ import annotations

import time

import pytest
from textual.widgets import Input

from paicli_tui.config.settings import Settings
from paicli_tui.llm.offline.demo import DemoTransport
from paicli_tui.session.live import Session
from paicli_tui.ui.review.plan_reviewer import UIPlanReviewer
from paicli_tui.ui.review.plan_review import PlanReviewScreen
from paicli_tui.ui.run.run_screen import RunScreen
from paicli_tui.ui.review.plan_diff import PlanDiffView
from paicli_tui.ui.run.pane_entries import StepHeading
from tests.support.timing import scaled
from tests.ui.run_host import HostApp, screen_text
from paicli_tui.session.port import PlanRun, TeamRun, command_for_input


def demo_app(tmp_path, pace: float = 0.0, **settings) -> tuple[HostApp, Session]:
    (tmp_path / "README.md").write_text("# Demo\nA small project.\n", encoding="utf-8")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("print('hi')\n", encoding="utf-8")
    reviewer = UIPlanReviewer(save_dir=tmp_path / "plans")
    session = Session(
        Settings(provider="demo", **settings), tmp_path, plan_reviewer=reviewer, transport=DemoTransport(pace=pace)
    )
    app = HostApp(session, frame=1 / 30)  # drained on the app's timer, like the product
    reviewer.attach(app)
    return app, session


async def until(pilot, condition, what: str, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + scaled(seconds)
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


async def run_reviewed(pilot, app, session, goal: str):
    """Submit ``goal``, press Enter on the review screen, return (future, run screen)."""
    future = session.submit(command_for_input(goal, session.approval_mode))
    await until(pilot, lambda: isinstance(app.screen, PlanReviewScreen), "the review screen")
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(app.screen, RunScreen), "the run screen")
    return future, app.screen


@pytest.mark.timeout(60)
async def test_team_run_streams_two_panes_and_shows_the_retry_in_the_step_pane(tmp_path):
    app, session = demo_app(tmp_path)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            future = session.submit(TeamRun("survey the project"))
            await until(pilot, lambda: isinstance(app.screen, PlanReviewScreen), "the review screen")
            assert app.screen.state.prefix == "step"
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, RunScreen), "the run screen")
            run = app.screen
            await until(pilot, lambda: run.query_one("#run-summary").display, "the end of the run")
            assert future.result(timeout=scaled(10)).status == "COMPLETED"
            steps = {p.worker: [e for e in p.entries if isinstance(e, StepHeading)] for p in run.panes}
            assert all(steps[w] for w in ("worker-1", "worker-2"))  # both panes ran steps
            retried = [p for p in run.panes if any(e.plain.startswith("↻ retry") for e in p.entries)]
            assert len(retried) == 1
            text = retried[0].text
            assert "✗ rejected · reviewer-step_2" in text and "↻ retry step_2 · attempt 2" in text
            assert "✓ approved · reviewer-step_2" in text
            cards = [type(e).__name__ for p in run.panes for e in p.entries if "card" in e.classes]
            assert cards.count("ReportCard") == 5 and cards.count("VerdictCard") == 5  # 4 steps, one retried
            assert '{"status"' not in screen_text(app)
            assert run.model.tasks["step_2"].attempt == 2 and run.model.tasks["step_2"].tokens > 0
            # the last step's reviewer is named after its step like the others (issue 14)
            assert {a.reviewer for a in run.model.attempts} == {f"reviewer-step_{i}" for i in range(1, 5)}
            assert run.query_one("#run-summary").display
            assert "Run COMPLETED" in str(run.query_one("#run-summary").border_title)
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, RunScreen), "back to the main screen")
    finally:
        session.close()


@pytest.mark.timeout(60)
async def test_plan_amendment_shows_a_diff_then_enter_runs_the_revised_plan(tmp_path):
    app, session = demo_app(tmp_path)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            future = session.submit(PlanRun("survey the project"))
            await until(pilot, lambda: isinstance(app.screen, PlanReviewScreen), "the review screen")
            review = app.screen
            before = len(review.plan.tasks)
            await pilot.press("i")
            app.screen.query_one(Input).value = "also count the lines of code"
            await pilot.press("enter")
            await until(pilot, lambda: review.query_one(PlanDiffView).display, "the diff")
            diff = review.query_one(PlanDiffView).diff
            assert diff.added and not diff.empty
            assert len(review.plan.tasks) == before + 1
            assert "Amendment: also count the lines of code" in review.goal
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, RunScreen), "the run screen")
            run = app.screen
            assert len(run.model.tasks) == before + 1
            await until(pilot, lambda: run.model.finished, "the end of the run")
            assert future.result(timeout=scaled(10)).ok
    finally:
        session.close()


@pytest.mark.timeout(60)
async def test_escape_cancels_a_running_plan_after_confirmation(tmp_path):
    app, session = demo_app(tmp_path, pace=0.02)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            future, run = await run_reviewed(pilot, app, session, "/plan survey the project")
            await until(pilot, lambda: any(t.status == "RUNNING" for t in run.model.tasks.values()), "a running task")
            await pilot.press("escape", "y")
            await until(pilot, lambda: run.query_one("#run-summary").display, "the cancelled run to end")
            assert run.model.status == "CANCELLED"
            assert future.result(timeout=scaled(10)).status == "CANCELLED"
            assert "Run CANCELLED" in str(run.query_one("#run-summary").border_title)
            # each task as it really ended: nothing "failed", and something was cut short
            outcomes = {t.outcome for t in run.model.tasks.values()}
            assert outcomes <= {"completed", "cancelled", "skipped"} and outcomes != {"completed"}
            assert all("model call failed" not in p.text for p in run.panes)
    finally:
        session.close()


@pytest.mark.timeout(30)
async def test_escape_on_the_collapsed_review_cancels_the_plan(tmp_path):
    app, session = demo_app(tmp_path)
    try:
        async with app.run_test() as pilot:
            future = session.submit(PlanRun("survey the project"))
            await until(pilot, lambda: isinstance(app.screen, PlanReviewScreen), "the review screen")
            await pilot.press("escape")
            outcome = future.result(timeout=scaled(10))
            assert (outcome.status, outcome.text) == ("CANCELLED", "plan cancelled before it ran")
            await until(pilot, lambda: not isinstance(app.screen, PlanReviewScreen), "the review to close")
    finally:
        session.close()


@pytest.mark.timeout(90)
async def test_cancelling_one_task_from_the_tree_skips_its_dependents_and_the_rest_goes_on(tmp_path):
    app, session = demo_app(tmp_path, pace=0.03)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            future, run = await run_reviewed(pilot, app, session, "/plan survey the project")
            await until(pilot, lambda: run.model.tasks["task_1"].status == "RUNNING", "task_1 running")
            run.task_tree.select_task("task_1")
            run.task_tree.focus()
            await pilot.press("c")
            await until(pilot, lambda: not isinstance(app.screen, RunScreen), "the confirmation")
            await pilot.press("y")
            await until(pilot, lambda: run.model.finished, "the end of the run", seconds=60)
            outcome = future.result(timeout=scaled(10))
            statuses = {task_id: task.status for task_id, task in run.model.tasks.items()}
            assert statuses["task_1"] == "SKIPPED"
            assert statuses["task_4"] == "SKIPPED"  # depends on task_1
            assert statuses["task_2"] == statuses["task_3"] == "COMPLETED"  # unrelated branches went on
            assert outcome.status == "FAILED" and not outcome.ok
    finally:
        session.close()


@pytest.mark.timeout(90)
async def test_c_cancels_the_selected_panes_task_and_a_question_about_an_ended_task_closes(tmp_path):
    from paicli_tui.ui.common.dialogs import Confirm

    app, session = demo_app(tmp_path, pace=0.02)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            future, run = await run_reviewed(pilot, app, session, "/plan survey the project")
            await until(pilot, lambda: any(w.step for w in run.model.workers.values()), "a busy worker")
            busy = next(name for name, w in run.model.workers.items() if w.step)
            step = run.model.workers[busy].step
            next(pane for pane in run.panes if pane.worker == busy).focus()
            await pilot.press("c")
            await until(pilot, lambda: isinstance(app.screen, Confirm), "the confirmation")
            assert run._cancel_confirm[0] == step  # the focused pane's task, not the tree's first row
            # Nobody answers; the run ends on its own: the question about an ended task goes away.
            await until(pilot, lambda: run.model.finished, "the end of the run", seconds=60)
            await until(pilot, lambda: app.screen is run, "the stale question to close")
            assert run._cancel_confirm is None
            future.result(timeout=scaled(10))
    finally:
        session.close()


@pytest.mark.timeout(90)
async def test_the_tree_shows_a_cursor_during_the_run_and_c_asks_about_the_task_under_it(tmp_path):
    from paicli_tui.ui.common.dialogs import Confirm

    app, session = demo_app(tmp_path, pace=0.03)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            future, run = await run_reviewed(pilot, app, session, "/plan survey the project")
            await until(pilot, lambda: run.model.tasks["task_1"].status == "RUNNING", "task_1 running")
            tree = run.task_tree
            assert tree.cursor_line == 0 and tree.cursor_task_id == "task_1"
            # The cursor row is drawn apart from the others even before the tree has focus.
            cursor_row, other_row = tree.render_line(0), tree.render_line(2)
            assert {seg.style.bgcolor for seg in cursor_row if seg.text.strip()} != \
                {seg.style.bgcolor for seg in other_row if seg.text.strip()}
            tree.focus()
            await pilot.press("c")
            await until(pilot, lambda: isinstance(app.screen, Confirm), "the confirmation")
            assert run._cancel_confirm[0] == "task_1"
            await pilot.press("n")
            await until(pilot, lambda: run.model.finished, "the end of the run", seconds=60)
            future.result(timeout=scaled(10))
    finally:
        session.close()
