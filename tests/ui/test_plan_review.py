"""Pilot tests of the plan review screen's keys (P-4.2, P-5.0): Enter,
Ctrl+O and its alias, Esc, the hints, and the amendment input."""

from __future__ import annotations

from textual.widgets import Input

from paicli_tui.ui.review.plan_review import PlanReviewScreen
from paicli_tui.ui.review.plan_diff import PlanDiffView
from tests.support.timing import scaled
from tests.ui.run_host import HostApp, make_plan, screen_text, survey_plan


async def open_review(app, pilot, plan=None, tmp_path=None):
    decisions = []
    screen = PlanReviewScreen(
        plan or survey_plan(), "Survey the project", on_decision=decisions.append, save_dir=tmp_path
    )
    await app.push_screen(screen)
    await pilot.pause()
    return screen, decisions


async def test_collapsed_view_shows_goal_count_rounds_first_round_and_the_hints():
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, _ = await open_review(app, pilot)
        shown = screen_text(app)
        assert "Goal: Survey the project" in shown
        assert "4 tasks in 3 parallel rounds" in shown
        assert "○ task_1 FILE_READ  Read the README" in shown
        assert "○ task_2 FILE_READ  List the source files" in shown
        assert "task_3" not in shown  # not in the first round, graph collapsed
        # Built as Content, not markup: every key name is drawn, none is eaten as a tag.
        assert "Enter run · Ctrl+O/v graph and edits · I amend · s save · Esc cancel" in shown
        assert "u undo" not in shown  # nothing to undo yet


async def test_the_first_rounds_ids_types_and_descriptions_line_up_in_columns():
    tasks = [{"id": str(n), "description": f"Job {n}", "type": kind}
             for n, kind in enumerate(["FILE_READ", "ANALYSIS", "COMMAND"] * 4, start=1)]
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        await open_review(app, pilot, make_plan(tasks))
        rows = [line for line in screen_text(app).splitlines() if line.lstrip().startswith("○ task_")]
        assert len(rows) == 12
        assert len({row.index("Job") for row in rows}) == 1  # the descriptions start in one column
        assert len({row.index(kind) for row in rows for kind in ("FILE_READ", "ANALYSIS", "COMMAND") if kind in row}) == 1
        assert "○ task_1  FILE_READ  Job 1" in rows[0] and "○ task_12 COMMAND    Job 12" in rows[-1]


async def test_enter_runs_the_plan_as_reviewed():
    app = HostApp()
    async with app.run_test() as pilot:
        _, decisions = await open_review(app, pilot)
        await pilot.press("enter")
        assert [(d.action, d.plan) for d in decisions] == [("run", None)]


async def test_enter_runs_even_when_the_tree_has_focus():
    app = HostApp()
    async with app.run_test() as pilot:
        screen, decisions = await open_review(app, pilot)
        await pilot.press("ctrl+o")
        assert app.focused is screen.task_tree
        await pilot.press("down", "enter")
        assert [d.action for d in decisions] == ["run"]


async def test_ctrl_o_and_its_alias_toggle_the_graph():
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, decisions = await open_review(app, pilot)
        graph = screen.query_one("#review-body")
        assert not graph.display
        await pilot.press("ctrl+o")
        assert screen.expanded and graph.display
        assert "task_4 COMMAND Run the tests  ← task_3" in screen_text(app)
        assert "↺ repeat, shown above" in screen_text(app)
        await pilot.press("ctrl+o")
        assert not screen.expanded and not graph.display
        await pilot.press("v")
        assert screen.expanded and graph.display
        await pilot.press("v")
        assert not screen.expanded and not graph.display
        assert decisions == []


async def test_escape_collapses_then_cancels():
    app = HostApp()
    async with app.run_test() as pilot:
        screen, decisions = await open_review(app, pilot)
        await pilot.press("ctrl+o", "escape")
        assert not screen.expanded and decisions == []
        await pilot.press("escape")
        assert [d.action for d in decisions] == ["cancel"]


async def test_i_sends_an_amendment_and_shows_a_spinner_until_the_revision_arrives():
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, decisions = await open_review(app, pilot)
        await pilot.press("i")
        prompt = app.screen.query_one(Input)
        prompt.value = "also check the licence"
        await pilot.press("enter")
        await pilot.pause()
        assert [(d.action, d.amendment) for d in decisions] == [("amend", "also check the licence")]
        assert screen.revising and screen.query_one("#review-revising").display
        await pilot.press("enter", "escape")  # nothing to decide while the planner works
        assert len(decisions) == 1
        revised = make_plan(
            [
                {"id": "a", "description": "Read the README", "type": "FILE_READ"},
                {"id": "l", "description": "Check the licence", "type": "FILE_READ"},
                {"id": "b", "description": "List the source files", "type": "FILE_READ"},
                {"id": "c", "description": "Summarise the findings", "dependencies": ["a", "l", "b"]},
            ]
        )
        screen.show_plan(revised, "Survey the project\nAmendment: also check the licence", previous=screen.plan)
        await pilot.pause()
        assert not screen.revising and not screen.query_one("#review-revising").display
        diff = screen.query_one(PlanDiffView).diff
        assert [t.description for t in diff.added] == ["Check the licence"]
        assert [t.description for t in diff.removed] == ["Run the tests"]
        assert diff.dependencies == [("task_4", ["task_2"], [])]
        shown = screen_text(app)
        assert "Changes from the previous version" in shown
        assert "+ task_2 FILE_READ  Check the licence" in shown
        assert "− COMMAND  Run the tests  (was task_4)" in shown
        assert "~ task_4 dependencies +task_2" in shown
        await pilot.press("enter")
        assert decisions[-1].action == "run" and decisions[-1].plan is None
        assert screen.plan is revised


async def test_a_rejected_revision_keeps_the_previous_plan_and_says_why():
    from paicli_tui.events import PlanRejected

    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, decisions = await open_review(app, pilot)
        original = screen.plan
        await pilot.press("i")
        app.screen.query_one(Input).value = "make it better"
        await pilot.press("enter")
        screen.show_plan(original, "Survey the project", rejected=True)
        app.bus.publish(PlanRejected("planner", "amendment", 'step 2 (id "b"): description: is blank'))
        await app.drain_events()
        await pilot.pause()
        shown = screen_text(app)
        assert "The revised plan was rejected; the previous plan is kept." in shown
        assert 'Reason: step 2 (id "b"): description: is blank' in shown
        assert screen.plan is original and "4 tasks in 3 parallel rounds" in shown


async def _until(pilot, condition, what: str) -> None:
    import time

    deadline = time.monotonic() + scaled(10)
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.02)


async def test_the_reviewer_answers_an_engine_thread_and_marks_a_failed_revision():
    from concurrent.futures import ThreadPoolExecutor

    from paicli_tui.ui.review.plan_reviewer import UIPlanReviewer

    app = HostApp()
    reviewer = UIPlanReviewer(app)
    plan = survey_plan()
    engine = ThreadPoolExecutor(max_workers=1)
    async with app.run_test(size=(120, 36)) as pilot:
        first = engine.submit(reviewer.review, plan, "Survey the project")
        await _until(pilot, lambda: isinstance(app.screen, PlanReviewScreen), "the review screen")
        screen = app.screen
        await pilot.press("i")
        app.screen.query_one(Input).value = "make it better"
        await pilot.press("enter")
        # Wait on the loop, not in it: a blocking result() would stop the very
        # loop that resolves the future (a 1-in-N failure under load).
        await _until(pilot, first.done, "the amendment")
        assert first.result().action == "amend"
        reviewer.report_error("The revised plan was rejected, the previous plan is kept: step 1: description: is blank")
        # review_loop asks again with the very same plan: the revision failed.
        second = engine.submit(reviewer.review, plan, "Survey the project")
        await _until(pilot, lambda: not screen.revising, "the plan to come back")
        assert app.screen is screen
        assert "The revised plan was rejected; the previous plan is kept." in screen_text(app)
        assert "description: is blank" in screen_text(app)
        await pilot.press("escape")
        await _until(pilot, second.done, "the cancel")
        assert second.result().action == "cancel"
        await _until(pilot, lambda: not isinstance(app.screen, PlanReviewScreen), "the review to close")
        third = engine.submit(reviewer.review, plan, "Survey the project")
        await _until(pilot, lambda: isinstance(app.screen, PlanReviewScreen), "a new review")
        app.exit()
    # The app closed with the review open: the engine hears "cancel".
    assert third.result(timeout=scaled(5)).action == "cancel"
    engine.shutdown()
