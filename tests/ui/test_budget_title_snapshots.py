"""Money limits on the run screen: each pane title shows its task's
spent/limit and the heading the run's spent/limit, from the recorded price."""

from __future__ import annotations

from paicli_tui import events as ev
from paicli_tui.ui.run.run_screen import RunScreen
from tests.ui.run_host import HostApp, HostSession, make_plan

NOW = [100.0]
PRICE = {"prompt": 1000.0, "completion": 1000.0}  # $1 per thousand tokens


def clock() -> float:
    return NOW[0]


def host() -> HostApp:
    return HostApp(HostSession(2, clock=clock))


async def spending(pilot) -> RunScreen:
    NOW[0] = 100.0
    app = pilot.app
    plan = make_plan([{"id": "a", "description": "Write the essay"}, {"id": "b", "description": "Check the facts"}],
                     "task", goal="An essay")
    screen = RunScreen(plan, plan.goal, ["worker-1", "worker-2"], kind="plan", clock=clock, tick=False,
                       price=PRICE, limits={"max_cost": 0.5, "run_max_cost": 2.0})
    await app.push_screen(screen)
    await pilot.pause()
    publish = app.bus.publish
    publish(ev.RunStarted("executor", "ready", 2, ("worker-1", "worker-2"), 0, 1, plan.to_dict()))
    for task, worker in (("task_1", "worker-1"), ("task_2", "worker-2")):
        publish(ev.TaskDispatched(task, task, worker, 1))
        publish(ev.TaskStatusChanged(task, task, "RUNNING"))
    NOW[0] = 103.0
    publish(ev.ModelResponse("task_1", "c1", "first part", "", (), "stop", 200, 120, 0, 1.0))
    publish(ev.ModelResponse("task_2", "c2", "facts", "", (), "stop", 40, 10, 0, 1.0))
    await app.drain_events()
    await pilot.pause()
    return screen


def test_pane_titles_and_the_heading_with_a_cost_limit(snap_compare):
    async def run_before(pilot):
        await spending(pilot)

    assert snap_compare(host(), terminal_size=(120, 36), run_before=run_before)


async def test_the_titles_say_spent_of_the_limit():
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await spending(pilot)
        assert screen.model.pane_title("worker-1") == "worker-1 · task_1 · $0.32/$0.50 · attempt 1"
        assert screen.model.pane_title("worker-2") == "worker-2 · task_2 · $0.05/$0.50 · attempt 1"
        from paicli_tui.ui.run.run_figures import heading_figures

        assert "≈$0.37/$2.00" in heading_figures(screen.model, PRICE)
