"""A finished run's tasks in the transcript: each task's result is there
whole and rendered as Markdown behind a one-line fold that names the task,
never a plain preview cut mid-thought."""

from __future__ import annotations

from paicli_tui import events as ev
from paicli_tui.ui.common.markdown_text import MarkdownText
from paicli_tui.plan.model import Plan, PlanStatus, Task, TaskStatus
from paicli_tui.plan.summary import summarize, task_of_line
from paicli_tui.ui.conversation.task_results import OPEN_HINT, TaskResultEntry
from paicli_tui.ui.conversation.transcript_entries import NoteLine
from tests.ui.conftest import settle, submit, transcript_text
from tests.ui.fake_session import Outcome

SIZE = (120, 36)
README_RESULT = ("## Findings\n\n- **README.md** has 2 sections: *Install* and *Usage*; the usage section shows "
                 "`invoicer render --month 2024-05` and says the output goes to `out/` unless `--to` is given.\n"
                 "- The last thought, which a 120-character preview never reached: tests run with `pytest -q`.")
LAYOUT_RESULT = "`invoicer/` holds `cli.py` and `render.py`; `tests/` has one test file."
DESCRIPTION = ("Read the README and note its title, its main sections and every command it tells a newcomer to run "
               "before they touch the code")


def _run(failed: bool = False) -> tuple[Plan, list[ev.Event]]:
    tasks = [Task("task_1", DESCRIPTION, status=TaskStatus.COMPLETED, result=README_RESULT),
             Task("task_2", "List the layout", status=TaskStatus.FAILED if failed else TaskStatus.COMPLETED,
                  result=LAYOUT_RESULT, error="the model stopped at its turn limit" if failed else "")]
    plan = Plan(tasks=tasks, goal="survey")
    status = PlanStatus.FAILED if failed else PlanStatus.COMPLETED
    events: list[ev.Event] = [ev.PlanProposed("planner", 1, "initial", "survey", plan.to_dict())]
    events += [ev.TaskStatusChanged("executor", t.id, t.status.value, t.result, t.error) for t in tasks]
    events.append(ev.RunFinished("executor", status.value, summarize(plan, status), {}, LAYOUT_RESULT))
    return plan, events


async def _finish_run(pilot, session, failed: bool = False) -> list[TaskResultEntry]:
    await submit(pilot, "/plan survey")
    _plan, events = _run(failed)
    for event in events:
        session.bus.publish(event)
    session.finish(Outcome("plan", not failed, events[-1].status))
    await settle(pilot)
    return list(pilot.app.main_screen.transcript.query(TaskResultEntry))


async def test_each_task_is_a_fold_holding_its_whole_result_as_markdown(app, session):
    async with app.run_test(size=SIZE) as pilot:
        folds = await _finish_run(pilot, session)
        assert [fold.task_id for fold in folds] == ["task_1", "task_2"]
        assert str(folds[0].title) == f"✅ task_1: {DESCRIPTION}"  # whole, never cut with "…"
        assert all(fold.collapsed for fold in folds)
        assert folds[0].query_one("CollapsibleTitle").region.height == 2  # wrapped, not cut at the edge
        assert [fold.result for fold in folds] == [README_RESULT, LAYOUT_RESULT]
        # Folded, a result is only its text: its Markdown is made when first unfolded.
        assert not [fold for fold in folds if fold.query(MarkdownText)]
        text = transcript_text(app)
        assert "run COMPLETED: 2 tasks — 2 completed" in text and OPEN_HINT.format(noun="task") in text
        notes = [str(note.render()) for note in app.main_screen.transcript.query(NoteLine)]
        assert not [note for note in notes if "task_1:" in note]  # no preview line besides the fold


async def test_a_click_unfolds_one_task_and_e_unfolds_them_all(app, session):
    async with app.run_test(size=SIZE) as pilot:
        folds = await _finish_run(pilot, session)
        await pilot.click(folds[0].query_one("CollapsibleTitle"))
        await pilot.pause()
        assert [fold.collapsed for fold in folds] == [False, True]
        shown = folds[0].query_one(MarkdownText)
        assert shown.source == README_RESULT and not folds[1].query(MarkdownText)
        assert shown.region.height >= 4  # the heading and both items, rendered and wrapped
        app.main_screen.transcript.focus()
        await pilot.press("e")
        await pilot.pause()
        assert not any(fold.collapsed for fold in folds)
        assert [fold.query_one(MarkdownText).source for fold in folds] == [README_RESULT, LAYOUT_RESULT]


async def test_a_failed_task_says_why_in_its_title_and_keeps_its_last_result(app, session):
    async with app.run_test(size=SIZE) as pilot:
        folds = await _finish_run(pilot, session, failed=True)
        failed = next(fold for fold in folds if fold.task_id == "task_2")
        assert str(failed.title) == "❌ task_2: List the layout — failed: the model stopped at its turn limit"
        assert failed.has_class("-failed") and failed.result == LAYOUT_RESULT


async def test_a_summary_with_no_task_results_stays_one_note(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/plan survey")
        session.bus.publish(ev.RunFinished("executor", "COMPLETED", "Plan COMPLETED: 1 task\n✅ task_1: Read", {}))
        session.finish(Outcome("plan", True, "COMPLETED"))
        await settle(pilot)
        assert not list(app.main_screen.transcript.query(TaskResultEntry))
        assert "run COMPLETED: 1 task\n✅ task_1: Read" in transcript_text(app)


async def test_a_team_runs_hint_says_step(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/team survey")
        session.bus.publish(ev.TaskStatusChanged("orchestrator", "step_1", "COMPLETED", LAYOUT_RESULT))
        session.bus.publish(ev.RunFinished("orchestrator", "COMPLETED",
                                           "Team run COMPLETED: 1 step\n✅ step_1: List the layout — x", {}))
        session.finish(Outcome("team", True, "COMPLETED"))
        await settle(pilot)
        assert OPEN_HINT.format(noun="step") in transcript_text(app)


def test_a_summary_line_names_its_task():
    plan, _events = _run(failed=True)
    lines = summarize(plan, PlanStatus.FAILED).splitlines()
    assert [task_of_line(line) for line in lines] == [None, ("✅", "task_1"), ("❌", "task_2")]
    assert task_of_line("Plan version 1 (replaced by a replan):") is None
    assert task_of_line("✅ task 1: no") is None
