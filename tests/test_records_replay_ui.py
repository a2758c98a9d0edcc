"""`paicli replay` on screen: a recorded team run played into the real app
ends on the same run screen state as the live run's (tree, attempts,
workers, verdict lines in the panes, summary)."""

from __future__ import annotations

import threading

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.offline.scripted import Script, ScriptedTransport
from paicli_tui.session.replay import ReplayReadOnly, ReplaySession
from paicli_tui.session.live import Session
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.ui.app import PaicliApp
from paicli_tui.ui.bridge.event_pump import EventPump
from paicli_tui.ui.run.pane_ops import op_text
from paicli_tui.records.run_views import tasks_from_plan
from paicli_tui.ui.run.run_model import RunModel
from paicli_tui.ui.run.run_screen import RunScreen
from tests.support.recorder import StepResponder, team_plan
from paicli_tui.session.port import AgentTurn

pytestmark = pytest.mark.timeout(60)


def _live_team_run(tmp_path):
    """A real team run; every live event (deltas included) also goes through
    an event pump into the run screen's model, as in the live app."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    script = Script({"planner": [team_plan(("A", []), ("B needs A", ["s1"]), ("C alone", []))]},
                    default=StepResponder("step_1"))
    settings = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0, workers=1)
    session = Session(settings, workspace, approver=AutoApprover(), transport=ScriptedTransport(script))
    pump = EventPump()
    session.bus.subscribe(pump.put)
    try:
        session.start_team("A then B, and C").result(timeout=20)
    finally:
        session.close()
    items = pump.drain()
    started = next(item for item in items if type(item).__name__ == "RunStarted")
    model = RunModel(tasks_from_plan(started.plan), list(started.workers), kind="team")
    output: dict[str, str] = {}
    for item in items:
        update = model.apply([item])
        for worker, segments in update.output.items():
            output[worker] = output.get(worker, "") + "".join(op_text(op) for op in segments)
    return session.ledger.path, model, output


def _state(model: RunModel):
    tasks = [(t.id, t.status, t.attempt, t.worker, t.result, t.error) for t in model.task_list()]
    return tasks, model.status, model.summary, {w: model.pane_title(w) for w in model.workers}


async def test_replayed_team_run_ends_on_the_live_run_screen_state(tmp_path):
    path, live_model, live_output = _live_team_run(tmp_path)
    session = ReplaySession(path)
    app = PaicliApp(session, remember_theme=False)
    screens: list[RunScreen] = []
    replay_output: dict[str, str] = {}

    def open_run(started, goal, kind):
        screen = RunScreen(started.plan, goal, list(started.workers), kind=kind, on_cancel=session.cancel, tick=False)
        apply = screen.model.apply

        def recording_apply(items):
            update = apply(items)
            for worker, segments in update.output.items():
                replay_output[worker] = replay_output.get(worker, "") + "".join(op_text(op) for op in segments)
            return update

        screen.model.apply = recording_apply
        screens.append(screen)
        app.call_from_thread(app.push_screen, screen)

    async with app.run_test(size=(140, 40)) as pilot:
        player = threading.Thread(target=session.play, args=(None, open_run), daemon=True)
        player.start()
        for _ in range(400):
            await pilot.pause(0.02)
            if screens and screens[0].model.finished and session.finished.is_set() and not len(app.pump):
                break
        (screen,) = screens
        assert app.screen is screen and screen.kind == "team" and screen.goal == "A then B, and C"
        assert _state(screen.model) == _state(live_model)
        assert screen.model.status == "COMPLETED" and "✅ step_1" in screen.model.summary
        assert replay_output == live_output
        assert "rejected" in replay_output["worker-1"]
        player.join(timeout=5)


def test_a_replay_takes_no_input_and_stops_on_cancel(tmp_path):
    path, _, _ = _live_team_run(tmp_path)
    session = ReplaySession(path)
    assert session.model_label.startswith(f"replay of {path.stem}") and session.workspace == tmp_path / "ws"
    with pytest.raises(ReplayReadOnly, match="takes no input"):
        session.submit(AgentTurn("do something"))
    session.cancel()
    assert session.play(1.0) is False and session.finished.is_set()


async def test_the_app_opens_the_replayed_runs_screen_from_its_run_started_event(tmp_path):
    """`paicli replay` passes no callback: the app itself opens one run
    screen at the recorded run_started, as for a live run."""
    path, live_model, _ = _live_team_run(tmp_path)
    session = ReplaySession(path)
    app = PaicliApp(session, remember_theme=False)
    async with app.run_test(size=(140, 40)) as pilot:
        player = threading.Thread(target=session.play, args=(None,), daemon=True)
        player.start()
        for _ in range(400):
            await pilot.pause(0.02)
            if session.finished.is_set() and not len(app.pump) and isinstance(app.screen, RunScreen):
                if app.screen.model.finished:
                    break
        screens = [s for s in app.screen_stack if isinstance(s, RunScreen)]
        assert len(screens) == 1 and screens[0] is app.screen
        screen = screens[0]
        assert screen.kind == "team" and screen.goal == "A then B, and C"
        assert _state(screen.model) == _state(live_model)
        # played instantly, yet every time shown is the recorded one, under a REPLAY badge
        assert screen.model.replay and screen.query_one("#run-badge").display
        for task_id, task in screen.model.tasks.items():
            live = live_model.tasks[task_id]
            assert abs(task.elapsed(screen.model.now()) - live.elapsed(live_model.now())) < 1e-3
        assert abs(screen.model.elapsed() - live_model.elapsed()) < 1e-3 and live_model.elapsed() > 0
        player.join(timeout=5)


async def test_the_main_screen_of_a_replay_shows_a_badge_and_says_why_it_takes_no_input(tmp_path, monkeypatch):
    """A replay makes no model calls: no API-key warning, no "type a goal",
    a REPLAY badge, and the first key typed says once why nothing is sent."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    path, _, _ = _live_team_run(tmp_path)
    session = ReplaySession(path, Settings(provider="openai"))
    app = PaicliApp(session, remember_theme=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause(0.2)
        main = app.main_screen
        lines = [str(line.render()) for line in main.transcript.query("Static")]
        text = "\n".join(lines)
        assert f"REPLAY of {path.stem}" in text and "read-only" in text
        assert "OPENAI_API_KEY" not in text and "type a goal" not in text
        assert "REPLAY" in str(main.status.query_one("#status-hint").render())
        await pilot.press("h", "i")
        await pilot.pause(0.2)
        text = "\n".join(str(line.render()) for line in main.transcript.query("Static"))
        assert text.count("it takes no input and calls no model") == 1
