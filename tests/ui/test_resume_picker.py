"""/resume in the app: the picker of interrupted runs, resuming one (its
ledger goes on, completed steps are not asked again), editing the plan
first (the review opens with the finished steps marked), and how the
picker looks at 120×36 and 80×24. The interrupted run is a real team
ledger (real Session, scripted model) cut where a kill would cut it."""

from __future__ import annotations

import time

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.offline.scripted import ScriptedTransport
from paicli_tui.records.ledger import read_ledger
from paicli_tui.records.resume_state import ResumeState, TaskState
from paicli_tui.records.verify import verify_ledger
from paicli_tui.session.live import Session
from paicli_tui.ui.app import PaicliApp
from paicli_tui.ui.conversation.main_screen import MainScreen
from paicli_tui.ui.resume.picker import ResumePicker
from paicli_tui.ui.review.plan_review import PlanReviewScreen
from paicli_tui.ui.review.plan_reviewer import UIPlanReviewer
from tests.support.recorder import lines_of, record, write_lines
from tests.support.resume_script import ResumeScript
from tests.ui.conftest import settle, submit, transcript_text
from tests.ui.fake_session import FakeSession
from tests.ui.test_run_screen_flow import until

pytestmark = pytest.mark.timeout(60)

#: The last two need both first ones: however the two workers are scheduled,
#: nothing else has finished when the later of the first two does.
STEPS = [("make one", []), ("make two", []), ("make three", [1, 2]), ("make four", [1, 2])]
SIZES = {"wide": (120, 36), "narrow": (80, 24)}


def _interrupted(tmp_path):
    """A team run's ledger cut just after step_1 and step_2 completed (in
    whichever order the two workers finished them); its workspace."""
    path = record(tmp_path, "team", "make four files", ResumeScript("team", STEPS, delay=0), workers=2,
                  isolation="off")
    lines = lines_of(path)
    at = max(i for i, line in enumerate(lines) if line["event"] == "status"
             and line["payload"].get("task_id") in ("step_1", "step_2")
             and line["payload"].get("status") == "COMPLETED")
    return write_lines(path, lines[: at + 1]), tmp_path / "ws"


def _app(workspace, script) -> tuple[PaicliApp, Session]:
    reviewer = UIPlanReviewer()
    config = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0,
                      isolation="off", workers=2)
    session = Session(config, workspace, plan_reviewer=reviewer, transport=ScriptedTransport(script))
    app = PaicliApp(session, remember_theme=False)
    reviewer.attach(app)
    return app, session


async def test_resume_picks_an_interrupted_run_and_finishes_it_in_its_own_ledger(tmp_path):
    ledger, workspace = _interrupted(tmp_path)
    script = ResumeScript("team", STEPS, delay=0)
    app, session = _app(workspace, script)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await submit(pilot, "/resume")
            await until(pilot, lambda: isinstance(app.screen, ResumePicker), "the picker")
            picker = app.screen
            assert [state.session for state in picker.runs] == [ledger.stem]
            assert "2/4 done" in str(picker.query_one("#resume-detail").render())
            await pilot.press("enter")
            await until(pilot, lambda: "run COMPLETED" in transcript_text(app), "the end of the resumed run")
    finally:
        session.close()
    assert script.asked_about("step_1") == [] and script.asked_about("step_2") == []
    assert sorted(p.name for p in workspace.glob("step_*.txt")) == [f"step_{i}.txt" for i in range(1, 5)]
    events = [line.event for line in read_ledger(ledger)]
    assert events.count("run_resumed") == 1 and events[-1] == "run_outcome"
    assert verify_ledger(ledger).ok
    own = [line.event for line in read_ledger(session.ledger.path)]
    assert "run_resumed" not in own and "status" not in own


async def test_edit_then_resume_opens_the_review_with_the_finished_steps_marked(tmp_path):
    ledger, workspace = _interrupted(tmp_path)
    script = ResumeScript("team", STEPS, delay=0)
    app, session = _app(workspace, script)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await submit(pilot, "/resume")
            await until(pilot, lambda: isinstance(app.screen, ResumePicker), "the picker")
            await pilot.press("e")
            await until(pilot, lambda: isinstance(app.screen, PlanReviewScreen), "the plan review")
            review = app.screen
            marked = {task.id: task.status for task in review.state.tasks()}
            assert marked == {"step_1": "COMPLETED", "step_2": "COMPLETED", "step_3": "PENDING",
                              "step_4": "PENDING"}
            await pilot.press("enter")
            await until(pilot, lambda: "run COMPLETED" in transcript_text(app), "the end of the resumed run")
    finally:
        session.close()
    assert script.asked_about("step_1") == [] and script.asked_about("step_2") == []
    assert verify_ledger(ledger).ok


async def test_resume_says_so_when_nothing_was_interrupted(tmp_path):
    app, session = _app(tmp_path, ResumeScript("team", STEPS, delay=0))
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await submit(pilot, "/resume")
            await settle(pilot)
            assert isinstance(app.screen, MainScreen)
            assert "no interrupted /plan or /team run of this workspace" in transcript_text(app)
    finally:
        session.close()


def _states() -> list[ResumeState]:
    stopped = 1_700_000_000.0
    team = ResumeState(path=None, session="20231114-221320-a1b2c3", index=1, kind="team",  # type: ignore[arg-type]
                       goal="add input validation to the invoice form and cover it with tests",
                       stopped="ended without an outcome — the process was killed", stopped_at=stopped,
                       turns=31, tokens=48_200)
    team.tasks = {f"step_{i}": TaskState(f"step_{i}", "COMPLETED" if i <= 3 else "PENDING") for i in range(1, 8)}
    team.tasks["step_4"].status = "RUNNING"
    plan = ResumeState(path=None, session="20231114-201500-d4e5f6", index=2, kind="plan",  # type: ignore[arg-type]
                       goal="split the reports module", stopped="run token limit reached (200000/200000 tokens)",
                       stopped_at=stopped - 7200, turns=52, tokens=200_000)
    plan.tasks = {f"task_{i}": TaskState(f"task_{i}", "COMPLETED" if i <= 4 else "PENDING") for i in range(1, 6)}
    return [team, plan]


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("size", SIZES)
def test_the_picker_looks_right(snap_compare, size):
    app = PaicliApp(FakeSession(), theme="paicli-dark", remember_theme=False)

    async def open_picker(pilot):
        await app.push_screen(ResumePicker(_states()))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZES[size], run_before=open_picker)
