"""How the run screen looks (P-7.3) mid-run and at the end, at 120×36 and
80×24. Elapsed times come from an injected clock, so frames are stable."""

from __future__ import annotations

import pytest

from paicli_tui import events as ev
from paicli_tui.ui.run.run_screen import RunScreen
from tests.ui.run_host import HostApp, survey_plan

SIZES = [(120, 36), (80, 24)]
NOW = [100.0]


def clock() -> float:
    return NOW[0]


async def mid_run(pilot) -> RunScreen:
    app = pilot.app
    NOW[0] = 100.0
    workers = ["worker-1", "worker-2"]
    screen = RunScreen(survey_plan("step"), "Survey the project", workers, kind="team", clock=clock, tick=False)
    await app.push_screen(screen)
    await pilot.pause()
    bus = app.bus
    for step, worker in (("step_1", "worker-1"), ("step_2", "worker-2")):
        bus.publish(ev.TaskDispatched(step, step, worker))
        bus.publish(ev.TaskStatusChanged(step, step, "RUNNING"))
    await app.drain_events()  # the steps start at 100 s
    thinking = "The README should say what the project is; I will read it first."
    bus.publish(ev.ModelDelta("worker-1", "c1", "reasoning", thinking))
    bus.publish(ev.ModelResponse("worker-1", "c1", "", "", (), "tool_calls", 900, 40, 0, 0.4))
    bus.publish(ev.ToolCallStarted("worker-1", "t1", "read_file", '{"path": "README.md"}'))
    bus.publish(ev.ToolCallFinished("worker-1", "t1", "read_file", True, "read 2 lines", "# Demo"))
    bus.publish(ev.ModelDelta("worker-1", "c2", "content", "The project is a small demo with one entry point"))
    bus.publish(ev.ModelDelta("worker-2", "c3", "content", '{"status": "completed", "result": "src/main.py"}'))
    bus.publish(ev.ModelResponse("worker-2", "c3", "", "", (), "stop", 700, 30, 0, 0.3))
    bus.publish(ev.WorkerReportParsed("worker-2", "step_2", 1, "completed", "src/main.py"))
    bus.publish(ev.ReviewStarted("reviewer-step_2", "step_2", 1))
    bus.publish(ev.ReviewVerdictGiven("reviewer-step_2", "step_2", 1, False, "- list the tests folder too"))
    bus.publish(ev.StepRetry("worker-2", "step_2", 2, "- list the tests folder too"))
    bus.publish(ev.ModelDelta("worker-2", "c4", "reasoning", "The reviewer wants the tests folder as well."))
    NOW[0] = 112.0
    await app.drain_events()
    await pilot.pause()
    return screen


@pytest.mark.parametrize("size", SIZES)
def test_run_screen_mid_run_with_two_panes_streaming(snap_compare, size):
    assert snap_compare(HostApp(), terminal_size=size, run_before=mid_run)


@pytest.mark.parametrize("size", SIZES)
def test_run_screen_final_summary(snap_compare, size):
    async def run_before(pilot):
        await mid_run(pilot)
        bus = pilot.app.bus
        results = {
            "step_1": "A small demo project.",
            "step_2": "src/main.py, tests/",
            "step_3": "Summary written",
            "step_4": "2 passed",
        }
        for step, result in results.items():
            bus.publish(ev.TaskStatusChanged(step, step, "COMPLETED", result=result))
        summary = "Plan COMPLETED: 4 tasks — 4 completed\n" + "\n".join(
            f"✅ {step}: {result}" for step, result in results.items()
        )
        bus.publish(ev.RunFinished("orchestrator", "COMPLETED", summary, {"completed": 4}))
        NOW[0] = 130.0
        await pilot.app.drain_events()
        await pilot.pause()

    assert snap_compare(HostApp(), terminal_size=size, run_before=run_before)
