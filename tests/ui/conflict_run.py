"""A /team run on the run screen whose two steps change the same line of
``src/calc.py`` in a real git workspace: the shared scenario of the conflict
and diff tests. The steps' trees, commits and merges are real (an
``IsolatedRun`` publishing its events on the host's bus); only the model's
part is left out, so the run screen sees exactly what a live run emits."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from paicli_tui import events as ev
from paicli_tui.ui.run.run_screen import RunScreen
from paicli_tui.workspace import IsolatedRun
from paicli_tui.workspace.run import MergeResult
from tests.support.gitrepo import CALC, make_git_workspace
from tests.ui.run_host import HostApp, HostSession, make_plan

NOW = [100.0]
STEPS = [
    {"id": "a", "description": "Make add tolerate None"},
    {"id": "b", "description": "Make add commutative in the source"},
    {"id": "c", "description": "Document add", "dependencies": ["a", "b"]},
]
FIRST = CALC.replace("    return a + b\n", "    if a is None or b is None:\n        return None\n    return a + b\n")
SECOND = CALC.replace("a + b", "b + a").replace("def sub", "# sub stays as it is\ndef sub")


def clock() -> float:
    return NOW[0]


def host() -> HostApp:
    return HostApp(HostSession(2, clock=clock))


@dataclass
class ConflictRun:
    screen: RunScreen
    run: IsolatedRun
    conflict: MergeResult


def publish(app: HostApp, *events: ev.Event) -> None:
    for event in events:
        app.bus.publish(event)


async def settle(pilot) -> None:
    await pilot.app.drain_events()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def step_2_in_conflict(pilot, tmp_path: Path) -> ConflictRun:
    """step_1 merged; step_2's approved change conflicts with it and waits."""
    NOW[0] = 100.0
    app = pilot.app
    run = IsolatedRun.begin_run(make_git_workspace(tmp_path / "ws"), "ui", tmp_path / "isolation", bus=app.bus)
    plan = make_plan(STEPS, "step", goal="Harden calc.add")
    screen = RunScreen(plan, plan.goal, ["worker-1", "worker-2"], kind="team", clock=clock, tick=False,
                       diff_source=lambda base, result: run.diff(base, result))
    await app.push_screen(screen)
    await pilot.pause()
    publish(app, ev.RunStarted("orchestrator", "ready", 2, ("worker-1", "worker-2"), 0, 1, plan.to_dict()))
    attempts = {}
    for step, worker, text in (("step_1", "worker-1", FIRST), ("step_2", "worker-2", SECOND)):
        publish(app, ev.TaskDispatched(step, step, worker, 1), ev.TaskStatusChanged(step, step, "RUNNING"))
        attempts[step] = attempt = run.attempt(step, worker)
        (attempt.path / "src" / "calc.py").write_text(text)
    NOW[0] = 104.0
    first = run.commit(attempts["step_1"])
    run.merge(attempts["step_1"], first)
    publish(app, ev.TaskStatusChanged("step_1", "step_1", "COMPLETED", result="add returns None for None"))
    NOW[0] = 106.0
    second = run.commit(attempts["step_2"])
    conflict = run.merge(attempts["step_2"], second)
    assert conflict.status == "conflict"
    publish(app, ev.TaskStatusChanged("step_2", "step_2", "CONFLICT"))
    NOW[0] = 107.5
    await settle(pilot)
    return ConflictRun(screen, run, conflict)
