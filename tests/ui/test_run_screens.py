"""The real app opens the run screen from a run's own events (reviewed or
not), keeps one screen per run through replans, paints every screen in the
stack each frame, and shows live tokens and cost."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

from paicli_tui import events as ev
from paicli_tui.config.settings import Price
from paicli_tui.policy.approval import ApprovalRequest, Decision, as_answer
from paicli_tui.ui.approval.approval import ApprovalScreen
from paicli_tui.ui.conversation.main_screen import MainScreen
from paicli_tui.ui.common.dialogs import Confirm
from paicli_tui.ui.run.run_screen import RunScreen
from tests.support.timing import scaled
from tests.ui.conftest import settle, text_of, transcript_text
from tests.ui.run_host import screen_text

SIZE = (120, 36)
STEPS = {
    "steps": [
        {"id": "step_1", "description": "Read the README", "type": "FILE_READ", "dependencies": []},
        {"id": "step_2", "description": "List the sources", "type": "FILE_READ", "dependencies": []},
        {"id": "step_3", "description": "Summarise", "type": "ANALYSIS", "dependencies": ["step_1", "step_2"]},
    ]
}
WORKERS = ("worker-1", "worker-2")


def start_run(bus, plan=STEPS, version: int = 1, goal: str = "survey the project", kind: str = "team") -> None:
    """What the engine publishes when a run starts without a review."""
    bus.publish(ev.RunRequested("session", kind, goal))
    bus.publish(ev.RunStarted("orchestrator", "ready", 2, WORKERS, 2, version, plan))


def status_tokens(app) -> str:
    return str(app.main_screen.query_one("#status-tokens").render())


def run_screens(app) -> list[RunScreen]:
    return [screen for screen in app.screen_stack if isinstance(screen, RunScreen)]


async def test_run_started_opens_the_run_screen_and_it_gets_that_frames_events(app, session):
    async with app.run_test(size=SIZE) as pilot:
        start_run(session.bus)
        session.bus.publish(ev.TaskDispatched("orchestrator", "step_1", "worker-1"))
        session.bus.publish(ev.ModelDelta("worker-1", "c1", "content", "reading the README"))
        await settle(pilot)
        (screen,) = run_screens(app)
        assert app.screen is screen and screen.kind == "team" and screen.goal == "survey the project"
        assert [pane.worker for pane in screen.panes] == list(WORKERS)
        assert screen.pane("worker-1").text.endswith("reading the README")
        assert "worker-1 · step_1 · attempt 1" in screen_text(app)


async def test_a_plan_run_opens_as_many_panes_as_its_widest_round(app, session):
    plan = {"tasks": [{**step, "id": step["id"].replace("step", "task")} for step in STEPS["steps"]]}
    plan["tasks"][2]["dependencies"] = ["task_1", "task_2"]
    async with app.run_test(size=SIZE) as pilot:
        session.bus.publish(ev.RunRequested("session", "plan", "survey"))
        session.bus.publish(ev.RunStarted("executor", "ready", 4, ("worker-1", "worker-2", "worker-3", "worker-4"),
                                          2, 1, plan))
        await settle(pilot)
        (screen,) = run_screens(app)
        assert screen.kind == "plan" and [pane.worker for pane in screen.panes] == ["worker-1", "worker-2"]


async def test_a_replan_updates_the_open_run_screen_instead_of_stacking_another(app, session):
    async with app.run_test(size=SIZE) as pilot:
        start_run(session.bus)
        await settle(pilot)
        (screen,) = run_screens(app)
        replanned = {"steps": [{"id": "step_1", "description": "Read it again", "type": "FILE_READ"}]}
        session.bus.publish(ev.PlanProposed("orchestrator", 2, "replan", "survey the project", replanned))
        await settle(pilot)
        assert screen.task_tree.task_ids == ["step_1"]
        start_run(session.bus, {"steps": [{"id": "step_9", "description": "Other", "type": "ANALYSIS"}]}, version=3)
        await settle(pilot)
        assert run_screens(app) == [screen] and app.screen is screen
        assert screen.task_tree.task_ids == ["step_9"] and screen.model.version == 3


async def test_the_summary_reaches_the_transcript_and_q_returns_to_the_main_screen(app, session):
    async with app.run_test(size=SIZE) as pilot:
        start_run(session.bus)
        await settle(pilot)
        screen = app.screen
        await pilot.press("q")  # nothing to close while it runs
        assert app.screen is screen
        summary = "Plan COMPLETED: 3 steps\n✅ step_1: Read the README"
        session.bus.publish(ev.RunFinished("orchestrator", "COMPLETED", summary, {"completed": 3}))
        await settle(pilot)
        assert "Run COMPLETED" in screen_text(app) and "[Esc/q] back" in screen_text(app)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert "run COMPLETED: 3 steps\n✅ step_1: Read the README" in transcript_text(app)


async def test_the_next_run_replaces_a_finished_run_screen_left_open(app, session):
    async with app.run_test(size=SIZE) as pilot:
        start_run(session.bus)
        session.bus.publish(ev.RunFinished("orchestrator", "COMPLETED", "done", {}))
        start_run(session.bus, goal="second run")  # a replay plays runs back to back
        session.bus.publish(ev.TaskDispatched("orchestrator", "step_2", "worker-2"))
        await settle(pilot)
        (screen,) = run_screens(app)
        assert screen.goal == "second run" and not screen.model.finished
        assert screen.model.tasks["step_2"].worker == "worker-2"


async def test_the_run_screen_keeps_painting_under_the_cancel_confirmation(app, session):
    async with app.run_test(size=SIZE) as pilot:
        start_run(session.bus)
        session.bus.publish(ev.TaskDispatched("orchestrator", "step_1", "worker-1"))
        await settle(pilot)
        screen = app.screen
        await pilot.press("escape")
        assert isinstance(app.screen, Confirm)
        session.bus.publish(ev.ModelDelta("worker-1", "c1", "content", "still streaming"))
        session.bus.publish(ev.TaskStatusChanged("orchestrator", "step_2", "RUNNING"))
        await settle(pilot)
        assert isinstance(app.screen, Confirm)
        assert screen.pane("worker-1").text.endswith("still streaming")
        assert screen.task_tree.label_text("step_2").startswith("◐ step_2")


async def test_the_run_screen_keeps_painting_under_an_approval_dialog(app, session):
    async with app.run_test(size=SIZE) as pilot:
        start_run(session.bus)
        session.bus.publish(ev.TaskDispatched("orchestrator", "step_1", "worker-1"))
        await settle(pilot)
        screen = app.screen
        request = ApprovalRequest("worker-2", "execute_command", {"command": "make"}, "runs a command")
        answer = ThreadPoolExecutor(max_workers=1).submit(app.approver.request, request)
        await settle(pilot)
        assert isinstance(app.screen, ApprovalScreen)
        session.bus.publish(ev.ModelDelta("worker-1", "c1", "content", "meanwhile"))
        await settle(pilot)
        assert screen.pane("worker-1").text.endswith("meanwhile")
        await pilot.press("n")
        assert as_answer(answer.result(timeout=scaled(5))).decision is Decision.NO


async def test_tokens_and_cost_show_live_on_the_status_bar_and_the_run_screen(app, session):
    session.settings.prices["demo"] = Price(prompt=2.0, completion=8.0, cached=0.5)
    session.client = SimpleNamespace(model="demo")
    async with app.run_test(size=SIZE) as pilot:
        start_run(session.bus)
        session.bus.publish(ev.TaskDispatched("orchestrator", "step_1", "worker-1"))
        session.bus.publish(ev.ModelResponse("worker-1", "c1", "ok", "", (), "stop", 100_000, 10_000, 50_000, 1.0))
        await settle(pilot)
        # (50,000 × 2 + 50,000 × 0.5 + 10,000 × 8) / 1e6 = $0.2050
        assert "110k tok · ≈$0.20 · 1/2 workers busy" in text_of(app, "#run-figures")
        assert status_tokens(app) == "in 100k · out 10k · cached 50k · ≈$0.20"


async def test_without_a_price_only_tokens_show(app, session):
    async with app.run_test(size=SIZE) as pilot:
        start_run(session.bus)
        session.bus.publish(ev.ModelResponse("worker-1", "c1", "ok", "", (), "stop", 1200, 34, 0, 0.1))
        await settle(pilot)
        assert text_of(app, "#run-figures").endswith("· 1.2k tok · 0/2 workers busy")
        assert status_tokens(app) == "in 1.2k · out 34"
        assert "$" not in screen_text(app)
