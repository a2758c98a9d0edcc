"""A session's checkpoints in one place: the store, the recorder the tool
registry feeds, and undo for the UI, ``revert_turn`` and ``paicli undo``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable

from paicli_tui import events as ev
from paicli_tui.checkpoints.recorder import CheckpointRecorder, RunSummary
from paicli_tui.checkpoints.revert import Actor, Reverter, RevertPlan, RevertResult
from paicli_tui.checkpoints.store import CheckpointStore, RunRecord


class Checkpoints:
    def __init__(self, workspace: Path, session_id: str, *, bus: ev.EventBus | None = None,
                 max_bytes: int | None = None, store: CheckpointStore | None = None,
                 redact: Callable[[str], str] | None = None) -> None:
        options: dict[str, Any] = {"max_bytes": max_bytes} if max_bytes else {}
        if redact is not None:
            options["redact"] = redact
        self.store = store or CheckpointStore(workspace, **options)
        self.session_id = session_id
        self.bus = bus
        self.recorder = CheckpointRecorder(workspace, session_id, store=self.store, bus=bus)
        self.reverter = Reverter(self.store, self.recorder)

    # -- runs ------------------------------------------------------------------

    def begin_run(self, kind: str, goal: str) -> str:
        return self.recorder.begin_run(kind, goal)

    def finish_run(self) -> ev.RunChangesRecorded | None:
        """Close the open run; the event to publish when it changed files or
        ran commands (None otherwise)."""
        summary: RunSummary | None = self.recorder.finish_run()
        if summary is None or not (summary.files or summary.commands):
            return None
        return ev.RunChangesRecorded("session", summary.run_id, summary.files, summary.commands, summary.unstored)

    def runs(self) -> list[RunRecord]:
        return self.reverter.runs()

    def run(self, run_id: str) -> RunRecord | None:
        return self.store.run(run_id)

    # -- undo ------------------------------------------------------------------

    def plan(self, run_id: str | None = None, task: str = "", version: int | None = None) -> RevertPlan | None:
        """The undo of ``run_id`` (default: the newest run with changes not
        undone yet), limited to one task when ``task`` is given."""
        run = self.store.run(run_id) if run_id else self.reverter.latest()
        return self.reverter.plan(run, task, version) if run is not None else None

    def last_turn_plan(self) -> RevertPlan | None:
        """For ``revert_turn``: this session's newest earlier run with changes."""
        current = self.recorder.current_run_id
        run = self.reverter.latest(session=self.session_id, exclude=[current] if current else [])
        return self.reverter.plan(run) if run is not None else None

    def diff(self, plan: RevertPlan, path: str) -> str:
        item = next((f for f in plan.files if f.path == path), None)
        if item is None:
            return ""
        try:
            return self.reverter.diff(item)
        except OSError as exc:
            return f"cannot show the change: {exc.strerror or exc}"

    def undo(self, plan: RevertPlan, overwrite: Iterable[str] = (), *, actor: Any = None,
             tool: str = "undo") -> RevertResult:
        """Carry out ``plan``. Its writes are recorded as a run of their own
        (kind ``undo``, so an undo can be undone from the list) or, when a
        run is open (``revert_turn``), as changes of that run."""
        if self.recorder.current_run_id is not None:
            who = actor if actor is not None else Actor("session", self.bus)
            return self.reverter.apply(plan, overwrite=overwrite, actor=who, bus=self.bus,
                                       by=self.recorder.current_run_id or "", tool=tool)
        run_id = self.recorder.begin_run("undo", plan.title())
        try:
            return self.reverter.apply(plan, overwrite=overwrite, actor=actor or Actor("session", self.bus),
                                       bus=self.bus, by=run_id, tool=tool)
        finally:
            self.recorder.finish_run()
