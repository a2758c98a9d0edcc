"""A small host app for the review and run screens: the product's event
path (a real EventBus → the real EventPump → a per-frame drain into each
screen's ``paint``) without the main screen, so tests publish real events
and drain frames on demand (``frame=None``) or on the app's timer."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from paicli_tui.config.settings import Settings
from paicli_tui.events import EventBus
from paicli_tui.plan.model import Plan
from paicli_tui.plan.parser import parse_plan
from paicli_tui.ui.bridge.event_pump import EventPump
from tests.ui.fake_session import FakeSession
from paicli_tui.ui.themes import DEFAULT_DARK, VARIABLE_DEFAULTS, load_themes


class HostSession(FakeSession):
    """The session of a run-screen host: a FakeSession whose settings carry
    the worker counts and whose bus stamps events with ``clock``, so tests
    that give the run screen the same clock get stable times."""

    def __init__(
        self, workers: int = 2, parallelism: int = 4, *, clock: Callable[[], float] = time.time, replay: bool = False
    ) -> None:
        super().__init__()
        self.settings = Settings(provider="demo", workers=workers, parallelism=parallelism)
        self.bus = EventBus("test-session", clock=clock)
        self.bus.subscribe(self._count_usage)
        self.is_replay = replay


class HostMain(Screen):
    def compose(self) -> ComposeResult:
        yield Static("main screen")


class HostApp(App[None]):
    def __init__(self, session: HostSession | None = None, *, frame: float | None = None) -> None:
        super().__init__()
        self.session = session or HostSession()
        self.pump = EventPump()
        self.session.bus.subscribe(self.pump.put)
        self.frame = frame
        self.painted = 0

    @property
    def bus(self) -> EventBus:
        return self.session.bus

    def get_default_screen(self) -> Screen:
        return HostMain(id="main")

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(VARIABLE_DEFAULTS)

    def on_mount(self) -> None:
        themes, _ = load_themes()
        for theme in themes:
            self.register_theme(theme)
        self.theme = DEFAULT_DARK
        if self.frame:
            self.set_interval(self.frame, self.drain_events)

    async def drain_events(self) -> None:
        items = self.pump.drain()
        if not items:
            return
        for screen in list(self.screen_stack):
            paint = getattr(screen, "paint", None)
            if paint is not None:
                await paint(items)
        self.painted += 1


def make_plan(tasks: list[dict], prefix: str = "task", goal: str = "Survey the project") -> Plan:
    plan = parse_plan(json.dumps({"summary": "", "tasks": tasks}), prefix)
    plan.goal = goal
    return plan


SURVEY = [
    {"id": "a", "description": "Read the README", "type": "FILE_READ"},
    {"id": "b", "description": "List the source files", "type": "FILE_READ"},
    {"id": "c", "description": "Summarise the findings", "type": "ANALYSIS", "dependencies": ["a", "b"]},
    {"id": "d", "description": "Run the tests", "type": "COMMAND", "dependencies": ["c"]},
]


def survey_plan(prefix: str = "task") -> Plan:
    return make_plan(SURVEY, prefix)


async def shown_text(app: App, pilot) -> str:
    """``screen_text`` after the app settled (toasts mount a frame later)."""
    await pilot.pause()
    await pilot.pause()
    return screen_text(app)


def screen_text(app: App) -> str:
    """What the terminal shows right now, as plain text lines (the same
    strips a snapshot is drawn from)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))
