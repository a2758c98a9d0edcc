"""How the run screen looks (P-7.3) at 80×24, 120×36 and 200×50: mid-run
with 2 and 4 workers (rendered Markdown, a report card, a verdict card), the
end with its summary (every pane's tail in view), a task's details, the
timeline, and a cancelled run. The bus and the screen share one fake clock,
so every time shown is stable."""

from __future__ import annotations

import pytest

from paicli_tui import events as ev
from paicli_tui.ui.run.run_screen import RunScreen
from tests.ui.run_host import HostApp, HostSession, make_plan

SIZES = [(80, 24), (120, 36), (200, 50)]
IDS = ["80x24", "120x36", "200x50"]
NOW = [100.0]

STEPS = [
    {"id": "a", "description": "Read the README and note its title", "type": "FILE_READ"},
    {"id": "b", "description": "List the source files", "type": "FILE_READ"},
    {"id": "c", "description": "Inspect the configuration", "type": "FILE_READ"},
    {"id": "d", "description": "Run the test suite", "type": "COMMAND"},
    {"id": "e", "description": "Summarise the project", "type": "ANALYSIS", "dependencies": ["a", "b", "c", "d"]},
]
ANSWER = (
    "## What the README says\n\n"
    "The project is a **small demo** with one entry point:\n\n"
    "- `src/main.py` prints a greeting\n"
    "- `tests/` holds one test\n\n"
    "```python\nprint('hi')\n```\n\n"
    "Next I check the"
)
REPORT = '{"status": "completed", "result": "- `src/main.py`\\n- `tests/test_main.py`"}'
VERDICT = '{"approved": false, "summary": "The files are listed but not what each one does.", "issues": ["Say what each file is for"]}'


def clock() -> float:
    return NOW[0]


def publish(bus, *events: ev.Event) -> None:
    for event in events:
        bus.publish(event)


def start(bus, step: str, worker: str, attempt: int = 1) -> None:
    publish(bus, ev.TaskDispatched(step, step, worker, attempt), ev.TaskStatusChanged(step, step, "RUNNING"))


async def open_run(pilot, workers: int) -> RunScreen:
    app = pilot.app
    names = [f"worker-{i}" for i in range(1, workers + 1)]
    plan = make_plan(STEPS, "step", goal="Survey the project and summarise it")
    screen = RunScreen(plan, plan.goal, names, kind="team", clock=clock, tick=False)
    await app.push_screen(screen)
    await pilot.pause()
    publish(app.bus, ev.RunStarted("orchestrator", "ready", workers, tuple(names), 0, 1, plan.to_dict()))
    return screen


async def mid_run(pilot, workers: int = 2) -> RunScreen:
    NOW[0] = 100.0
    screen = await open_run(pilot, workers)
    bus = pilot.app.bus
    for i in range(1, workers + 1):
        start(bus, f"step_{i}", f"worker-{i}")
    NOW[0] = 101.0
    publish(
        bus,
        ev.ModelDelta("worker-1", "c1", "reasoning", "The README should say what the project is; I read it first."),
        ev.ModelResponse("worker-1", "c1", "", "…", ({"id": "t1", "name": "read_file", "arguments": "{}"},), "tool_calls", 900, 40, 0, 0.4),
        ev.ToolCallStarted("worker-1", "t1", "read_file", '{"path": "README.md"}'),
        ev.ToolCallFinished("worker-1", "t1", "read_file", True, "read 12 lines of README.md", "# Demo"),
        ev.ModelDelta("worker-1", "c2", "content", ANSWER),
        ev.ModelDelta("worker-2", "c3", "content", REPORT),
        ev.ModelResponse("worker-2", "c3", REPORT, "", (), "stop", 700, 30, 0, 0.3),
        ev.WorkerReportParsed("worker-2", "step_2", 1, "completed", "- `src/main.py`\n- `tests/test_main.py`"),
        ev.ReviewStarted("reviewer-step_2", "step_2", 1),
    )
    NOW[0] = 103.0
    publish(
        bus,
        ev.ModelResponse("reviewer-step_2", "r1", VERDICT, "", (), "stop", 400, 60, 0, 0.3),
        ev.ReviewVerdictGiven("reviewer-step_2", "step_2", 1, False, "- Say what each file is for"),
        ev.StepRetry("worker-2", "step_2", 2, "- Say what each file is for"),
    )
    start(bus, "step_2", "worker-2", 2)
    publish(bus, ev.ModelDelta("worker-2", "c4", "reasoning", "The reviewer wants each file explained."))
    if workers >= 4:
        publish(
            bus,
            ev.ModelDelta("worker-3", "c5", "content", "The configuration is `pyproject.toml`; it names **one** dependency."),
            ev.ModelResponse("worker-3", "c5", "", "", (), "stop", 500, 50, 0, 0.3),
            ev.ReviewStarted("reviewer-step_3", "step_3", 1),
            ev.ReviewVerdictGiven("reviewer-step_3", "step_3", 1, True, "Complete.", ("mention the licence",)),
            ev.TaskStatusChanged("step_3", "step_3", "COMPLETED", result="one dependency"),
            ev.ToolCallStarted("worker-4", "t4", "run_command", '{"command": "python -m pytest -q"}'),
        )
    NOW[0] = 104.6
    await pilot.app.drain_events()
    await pilot.pause()
    return screen


async def finished(pilot, workers: int = 2) -> RunScreen:
    screen = await mid_run(pilot, workers)
    bus = pilot.app.bus
    results = {f"step_{i}": f"Result of step {i}: **done**" for i in range(1, 6)}
    for i, (step, result) in enumerate(results.items(), start=1):
        if step == "step_5":
            start(bus, step, "worker-1")
            publish(bus, ev.ModelDelta("worker-1", "c9", "content", "A small demo: one entry point, one test."))
        NOW[0] = 104.6 + i
        publish(bus, ev.TaskStatusChanged(step, step, "COMPLETED", result=result))
    summary = "Team run COMPLETED: 5 steps — 5 completed\n" + "\n".join(f"✅ {s}: {r}" for s, r in results.items())
    publish(bus, ev.RunFinished("orchestrator", "COMPLETED", summary, {"completed": 5}))
    await pilot.app.drain_events()
    await pilot.pause()
    await pilot.pause()
    return screen


def host() -> HostApp:
    return HostApp(HostSession(4, clock=clock))


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_mid_run_with_two_workers(snap_compare, size):
    assert snap_compare(host(), terminal_size=size, run_before=mid_run)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_mid_run_with_four_workers(snap_compare, size):
    async def run_before(pilot):
        await mid_run(pilot, 4)

    assert snap_compare(host(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_end_with_the_summary_and_every_tail_in_view(snap_compare, size):
    assert snap_compare(host(), terminal_size=size, run_before=finished)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_task_details(snap_compare, size):
    async def run_before(pilot):
        screen = await mid_run(pilot)
        screen.open_details("step_2")
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(host(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_timeline(snap_compare, size):
    async def run_before(pilot):
        await mid_run(pilot, 4)
        await pilot.press("g")
        await pilot.pause()

    assert snap_compare(host(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_cancelled_run(snap_compare, size):
    async def run_before(pilot):
        await mid_run(pilot)
        bus = pilot.app.bus
        NOW[0] = 106.0
        publish(
            bus,
            ev.TaskStatusChanged("step_1", "step_1", "COMPLETED", result="A small demo."),
            ev.ModelError("worker-2", "c4", "cancelled", "the request was cancelled"),
            ev.TaskStatusChanged("step_2", "step_2", "SKIPPED", error="cancelled"),
            *(ev.TaskStatusChanged(s, s, "SKIPPED", error="cancelled") for s in ("step_3", "step_4", "step_5")),
            ev.RunFinished("orchestrator", "CANCELLED", "Team run CANCELLED: 5 steps — 1 completed, 4 skipped", {}),
        )
        await pilot.app.drain_events()
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(host(), terminal_size=size, run_before=run_before)
