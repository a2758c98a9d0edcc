"""A recorded session standing in for a live one, so the full-screen app can
play a ledger back (`paicli replay SESSION`). Textual-free: it has the
surface the app and its screens read (bus, settings, workspace, model label,
usage, mode, busy, submit, cancel) and plays the timeline onto its bus from
a thread, like an engine would. Nothing can be submitted: no model, no tools.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Callable

from paicli_tui import events as ev
from paicli_tui.config.settings import MODES, Settings, checked_mode, next_mode
from paicli_tui.llm.types import Usage
from paicli_tui.records.player import Skip, Timed, play, timeline
from paicli_tui.policy.grants import Grant, GrantStore
from paicli_tui.records.runs import load
from paicli_tui.session.port import SessionCommand

#: Called on the player thread just before a run's first scheduling event:
#: (run_started event, the run's goal, "plan" | "team").
RunOpened = Callable[[ev.RunStarted, str, str], None]


#: The actor of the lines the replay adds itself (a recorded pause): the
#: transcript narrates the session's own notes.
REPLAY_ACTOR = "session"


def pause_words(before: ev.Event | None, seconds: float) -> str:
    """What the recording was waiting for, and how to go on."""
    shown = f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"
    if isinstance(before, ev.PlanProposed):
        what = f"the person reviewed the plan for {shown}"
    elif isinstance(before, ev.ApprovalRequested):
        what = f"the person took {shown} to answer"
    else:
        what = f"nothing happens for {shown} in the recording"
    return f"⏸ {what} · Enter skips the wait"


class ReplayReadOnly(RuntimeError):
    """Input typed during a replay."""


class ReplaySession:
    #: The run screen shows a REPLAY badge and the recorded times.
    is_replay = True
    #: No undo, memory or MCP servers in a replay: it changes and calls nothing.
    checkpoints = None
    knowledge = None
    mcp = None
    isolation = None
    hooks = None
    user_skills_dir = None
    #: No live model: the recorded runs carry their own prices.
    model = ""

    def __init__(self, path: Path, settings: Settings | None = None) -> None:
        self.path = path
        self.session_id = path.stem
        self.warnings: list[str] = []
        self.timeline: list[Timed] = timeline(load(path, self.warnings), self.warnings)
        started = next((t.event for t in self.timeline if isinstance(t.event, ev.SessionStarted)), None)
        self.settings = settings or Settings()
        self.workspace = Path(started.workspace) if started else path.parent
        self.model_label = f"replay of {self.session_id}" + (f" ({started.model})" if started else "")
        self._mode = started.mode if started and started.mode in MODES else "auto"
        self.bus = ev.EventBus(self.session_id)
        self.usage = Usage()
        self.bus.subscribe(self._count_usage)
        self._stop = threading.Event()
        self._skip = Skip()
        self._playing = threading.Event()
        self.finished = threading.Event()
        self._grants = GrantStore(self.workspace)

    # -- the session surface the UI reads ------------------------------------------------

    @property
    def approval_mode(self) -> str:
        return self._mode

    @approval_mode.setter
    def approval_mode(self, mode: str) -> None:
        self._mode = checked_mode(mode)

    def cycle_mode(self) -> str:
        self._mode = next_mode(self._mode)
        return self._mode

    @property
    def busy(self) -> bool:
        return self._playing.is_set()

    @property
    def read_only_reason(self) -> str:
        """Why the app takes no input: said once, at the first key."""
        return f"this is a replay of {self.session_id}: it takes no input and calls no model (Ctrl+C twice quits)"

    @property
    def intro(self) -> str:
        """The first transcript line: what is being replayed, and that it is one."""
        started = next((t.event for t in self.timeline if isinstance(t.event, ev.SessionStarted)), None)
        model = f" · recorded with {started.model}" if started and started.model else ""
        return f"REPLAY of {self.session_id}{model} · {self.workspace} — read-only, nothing is sent to a model"

    def submit(self, command: SessionCommand) -> Future:
        raise ReplayReadOnly(self.read_only_reason)

    def set_model(self, model: str) -> str:
        raise ReplayReadOnly(self.read_only_reason)

    def cancel_task(self, task_id: str) -> bool:
        return False  # a recorded task cannot be interrupted

    def skills(self) -> list:
        return []

    @property
    def grants(self) -> GrantStore:
        return self._grants

    def revoke_grant(self, grant: Grant) -> bool:
        return False

    def keep_grant(self, grant: Grant) -> Path:
        raise ReplayReadOnly(self.read_only_reason)

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def cancel(self, reason: str = "cancelled by the user") -> None:
        """Stop the playback where it is."""
        self._stop.set()
        self._skip.wake()

    def close(self, timeout: float = 10.0, *, reason: str = "cancelled by the user") -> None:
        self.cancel(reason)

    def skip_wait(self) -> bool:
        """Play on at once past a recorded pause (the person reading a plan,
        answering a question); False when nothing is being waited for."""
        return self._skip.now()

    def _count_usage(self, event: ev.Event) -> None:
        if isinstance(event, ev.ModelResponse):
            self.usage = self.usage + Usage.of_response(event)

    # -- playback -------------------------------------------------------------------------

    def play(self, speed: float | None, on_run: RunOpened | None = None) -> bool:
        """Publish the recorded events (blocking; run it on a thread).
        Returns False when stopped before the end."""
        goal = ""

        def publish(event: ev.Event) -> None:
            nonlocal goal
            if isinstance(event, ev.RunRequested):
                goal = event.goal
            elif isinstance(event, ev.PlanProposed) and not goal:
                goal = event.goal
            elif isinstance(event, ev.RunStarted) and on_run is not None:
                on_run(event, goal, event.run_kind)
            self.bus.publish(event)

        last: list[ev.Event] = []

        def gap(next_item: Timed, seconds: float) -> None:
            self.bus.publish(ev.AgentNote(REPLAY_ACTOR, pause_words(last[-1] if last else None, seconds)))

        def remember(event: ev.Event) -> None:
            last[:] = [event]
            publish(event)

        self._playing.set()
        try:
            return play(self.timeline, remember, speed=speed, cancel=self._stop, skip=self._skip, on_gap=gap)
        finally:
            self._playing.clear()
            self.finished.set()
