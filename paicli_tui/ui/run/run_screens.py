"""Which run screen shows a plan or team run, and which screens get each
frame's events (P-7.3, P-7.6).

Every /plan and /team run opens its run screen from its own ``run_started``
event — reviewed or not (``--yes``, ``team_review`` off, a plan file, a
replay). A run screen that is already open and not finished (the review
screen swapped itself for one on Enter) adopts the run instead, and a
replan updates that screen: one run, one screen. Every screen in the stack
that paints is painted each frame, so a run screen under an approval dialog
or the cancel confirmation keeps up.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Any, Callable

from paicli_tui import events as ev
from paicli_tui.present.figures import session_price

if TYPE_CHECKING:
    from paicli_tui.plan.model import Plan
    from paicli_tui.session.port import SessionPort
    from paicli_tui.ui.app import PaicliApp
    from paicli_tui.ui.run.run_screen import RunScreen

# The run screen, its widgets, the undo machinery and the plan parser are
# imported when the first run opens, not before the first screen draws.
RUN_SCREEN_MODULE = "paicli_tui.ui.run.run_screen"


def is_run_screen(screen: Any) -> bool:
    """Without importing the run screen: until its module is loaded, no
    screen can be one."""
    module = sys.modules.get(RUN_SCREEN_MODULE)
    return module is not None and isinstance(screen, module.RunScreen)


def _new_run_screen(app: "PaicliApp", session: "SessionPort", plan: Any, goal: str, workers: list[str], *,
                    kind: str, clock: Callable[[], float], price: Any,
                    limits: dict | None = None, where: str = "") -> "RunScreen":
    from paicli_tui.ui.run.run_screen import RunScreen
    from paicli_tui.ui.undo.task_undo import task_undo_opener

    from paicli_tui.workspace.receipts import task_diff

    workspace = session.workspace
    return RunScreen(
        plan, goal, workers, kind=kind, on_cancel=session.cancel, on_cancel_task=session.cancel_task,
        on_undo_task=task_undo_opener(app, session), clock=clock, price=price,
        diff_source=lambda base, result: task_diff(workspace, base, result), where=where,
        limits=limits if limits is not None else money_limits(session),
    )


def money_limits(session: "SessionPort") -> dict:
    """The session's cost limits (what a run it starts will record)."""
    settings = getattr(session, "settings", None)
    return {name: getattr(settings, name, None) for name in ("max_cost", "run_max_cost")}


def widest_round(plan: "Plan | dict") -> int:
    """How many tasks of the plan can run at once, round by round."""
    from paicli_tui.plan.model import Plan, Task
    from paicli_tui.records.run_views import tasks_from_plan

    views = tasks_from_plan(plan)
    known = {view.id for view in views}
    # A plan dict from an event may name a dependency it lacks; the rounds
    # only count what the plan has.
    shape = Plan([Task(v.id, v.description, dependencies=[d for d in v.dependencies if d in known]) for v in views])
    return max((len(round_) for round_ in shape.batches()), default=1)


def pane_workers(kind: str, plan: "Plan | dict", workers: list[str]) -> list[str]:
    """The panes to open with: every team worker; for /plan, as many slots
    as the widest round needs (more appear if the executor uses more)."""
    if kind == "team" or not workers:
        return list(workers) or ["worker-1"]
    return workers[: max(1, min(len(workers), widest_round(plan)))]


def planned_workers(session: "SessionPort", plan: "Plan") -> tuple[str, list[str]]:
    """(kind, worker names) for a reviewed plan about to run, before the
    executor says: /team runs ``settings.workers`` workers, /plan up to
    ``settings.parallelism`` slots."""
    from paicli_tui.plan.model import id_prefix_of

    settings = session.settings
    if id_prefix_of(plan) == "step":
        return "team", [f"worker-{i}" for i in range(1, settings.workers + 1)]
    slots = [f"worker-{i}" for i in range(1, settings.parallelism + 1)]
    return "plan", pane_workers("plan", plan, slots)


def open_run_screen(
    app: "PaicliApp", plan: "Plan", goal: str, *, replace: bool = False, clock: Callable[[], float] = time.time
) -> "RunScreen":
    """Show the run screen for a reviewed ``plan`` (UI thread). ``replace``
    swaps it for the top screen (the review screen) instead of pushing it."""
    session = app.session
    kind, workers = planned_workers(session, plan)
    # Where the session's executor runs the tasks: the heading says so from the first frame.
    where = getattr(getattr(session, "executor", None), "where", "")
    screen = _new_run_screen(app, session, plan, goal, workers, kind=kind, clock=clock, price=session_price(session),
                             where=where)
    if replace:
        app.switch_screen(screen)
    else:
        app.push_screen(screen)
    return screen


class RunScreens:
    """Paints the screens above the main screen and opens run screens."""

    def __init__(self, app: "PaicliApp", *, clock: Callable[[], float] = time.time) -> None:
        self.app = app
        self.clock = clock
        self._kind = ""
        self._goal = ""
        self._price: Any = None
        self._limits: dict | None = None

    def live(self) -> "RunScreen | None":
        """The open run screen whose run has not finished, if any."""
        for screen in reversed(self.app.screen_stack):
            if is_run_screen(screen) and not screen.model.finished:
                return screen
        return None

    async def paint(self, events: list[Any], *, skip: Any = None) -> None:
        """Paint ``events`` into every screen in the stack that paints (but
        ``skip``), opening a run screen where a run starts that no open
        screen adopts; that screen gets the events from its start on."""
        start = 0
        for index, item in enumerate(events):
            if isinstance(item, ev.RunRequested):
                self._kind, self._goal = item.kind, item.goal
                self._price = next(iter(item.prices.values()), None) if item.prices else None
                self._limits = dict(item.limits)
            elif isinstance(item, ev.PlanProposed) and item.goal:
                self._goal = item.goal  # an amendment extends the goal
            elif isinstance(item, ev.RunStarted):
                # What came before may have finished the open run's screen.
                await self._paint_stack(events[start:index], skip)
                start = index
                if self.live() is None:
                    await self._open(item)
            elif isinstance(item, ev.RunResumed) and item.kind in ("plan", "team"):
                await self._paint_stack(events[start:index], skip)
                start = index + 1
                if self.live() is None:
                    await self._open_resumed(item)
        await self._paint_stack(events[start:], skip)

    async def _paint_stack(self, events: list[Any], skip: Any) -> None:
        if not events:
            return
        for screen in list(self.app.screen_stack):
            paint = getattr(screen, "paint", None)
            if screen is not skip and paint is not None:
                await paint(events)

    async def _open_resumed(self, resumed: ev.RunResumed) -> None:
        """A resumed run's screen: its plan with what it kept already finished."""
        self._kind, self._goal = resumed.kind, resumed.goal
        await self._open(ev.RunStarted("session", "", len(resumed.workers), resumed.workers, 0, resumed.version,
                                       resumed.plan, resumed.kind, resumed.executor))
        done = [ev.TaskStatusChanged(task, task, status) for task, status in resumed.statuses.items()
                if status != "PENDING"]
        await self._paint_stack(done, None)

    async def _open(self, started: ev.RunStarted) -> None:
        kind = self._kind if self._kind in ("plan", "team") else started.run_kind
        session = self.app.session
        screen = _new_run_screen(
            self.app, session, started.plan, self._goal, pane_workers(kind, started.plan, list(started.workers)),
            kind=kind, clock=self.clock, price=self._price if self._price is not None else session_price(session),
            limits=self._limits, where=started.executor,
        )
        top = self.app.screen
        if is_run_screen(top) and top.model.finished:
            await self.app.pop_screen()  # the last run's summary is in the transcript
        await self.app.push_screen(screen)
