"""Recording checkpoints while tools run: one per file a tool changes, taken
before the change, grouped by run (one input: a turn, a /plan or a /team
run) and by the task or step whose agent made it.

The registry wraps every file-changing call in ``recording``. Calls on one
file are serialised by a lock per file, so two workers writing the same file
still get one true "before" and one true "after" each; calls on different
files run as freely as before. Which task a change belongs to comes from the
bus: a /plan task's agent is named after its task, a /team worker is mapped
to the step it was last dispatched (``dispatch`` events).
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from paicli_tui import events as ev
from paicli_tui.checkpoints import files
from paicli_tui.checkpoints.store import CheckpointStore, FileState
from paicli_tui.tools.base import ToolError

if TYPE_CHECKING:
    from paicli_tui.tools.base import ToolContext

#: The tool whose file changes cannot be recorded (P-9.3): a command may
#: change anything, anywhere.
UNTRACKED_TOOLS = frozenset({"execute_command"})


@dataclass
class _Pending:
    run_id: str
    change_id: int
    path: str
    before: FileState


@dataclass(frozen=True)
class RunSummary:
    run_id: str
    files: tuple[str, ...]
    commands: tuple[str, ...]
    unstored: tuple[str, ...]


class CheckpointRecorder:
    def __init__(self, workspace: Path, session_id: str, *, store: CheckpointStore | None = None,
                 bus: ev.EventBus | None = None, max_bytes: int | None = None) -> None:
        self.workspace = Path(workspace).resolve()
        self.session_id = session_id
        self.store = store or CheckpointStore(self.workspace, **({"max_bytes": max_bytes} if max_bytes else {}))
        self.bus = bus
        self._lock = threading.RLock()
        self._path_locks: dict[str, threading.Lock] = {}
        self._runs = 0
        self._run_id: str | None = None
        self._open: set[str] = set()
        self._next_change: dict[str, int] = {}
        self._version = 0
        self._tasks: set[str] = set()
        self._worker_step: dict[str, str] = {}
        #: Files tools changed in the current run, and when it began: running
        #: one as a script runs text the model chose (the risk check asks).
        self._written: set[Path] = set()
        self._run_started_ns: int | None = None
        if bus is not None:
            bus.subscribe(self.observe)

    # -- runs --------------------------------------------------------------------

    @property
    def current_run_id(self) -> str | None:
        return self._run_id

    def begin_run(self, kind: str, goal: str) -> str:
        with self._lock:
            self._runs += 1
            run_id = f"{self.session_id}-{self._runs:03d}"
            self._run_id = run_id
            self._open.add(run_id)
            self._next_change[run_id] = 0
            self._version, self._tasks, self._worker_step = 0, set(), {}
            self._written, self._run_started_ns = set(), time.time_ns()
        self.store.recount()
        self.store.open_run(run_id, self.session_id, kind, goal)
        return run_id

    def finish_run(self) -> RunSummary | None:
        with self._lock:
            run_id, self._run_id = self._run_id, None
            if run_id is None:
                return None
            self._open.discard(run_id)
        self.store.close_run(run_id)
        record = self.store.run(run_id)
        if record is None:
            return None
        unstored = tuple(sorted({c.path for c in record.effective if not c.stored}))
        return RunSummary(run_id, tuple(record.files), record.commands, unstored)

    def _ensure_run(self) -> str:
        """The open run; a change made outside any run (a direct registry
        call) gets a run of its own."""
        with self._lock:
            return self._run_id if self._run_id is not None else self.begin_run("react", "")

    def observe(self, event: ev.Event) -> None:
        """Bus subscriber: learn which task or step each agent works on."""
        if isinstance(event, ev.RunStarted):
            with self._lock:
                self._version = event.version
        elif isinstance(event, ev.TaskDispatched):
            with self._lock:
                self._tasks.add(event.task_id)
                self._worker_step[event.worker] = event.task_id

    def _task_of(self, actor: str) -> str:
        with self._lock:
            return actor if actor in self._tasks else self._worker_step.get(actor, "")

    # -- recording ------------------------------------------------------------------

    def note_untracked(self, tool: str, ctx: "ToolContext") -> None:
        """A command is about to run: the run's undo cannot cover it."""
        if tool not in UNTRACKED_TOOLS:
            return
        try:
            self.store.note_commands(self._ensure_run(), self._task_of(ctx.actor) or ctx.actor)
        except OSError:
            pass  # the store cannot be written: the command still runs

    @contextmanager
    def recording(self, tool: str, raw_paths: list[str], ctx: "ToolContext") -> Iterator[None]:
        """Checkpoint each file before the body changes it; record what the
        body left behind after it (whether it succeeded or not)."""
        paths = sorted({p for p in (self._canonical(raw) for raw in raw_paths) if p})
        with ExitStack() as held:
            for path in paths:  # sorted: two calls never wait on each other in a cycle
                held.enter_context(self._path_lock(path))
            pending = [p for p in (self._before(path, tool, ctx) for path in paths) if p is not None]
            try:
                yield
            finally:
                for item in pending:
                    self._after(item)

    def _canonical(self, raw: str) -> str:
        try:
            return files.canonical(self.workspace, raw)
        except ToolError:
            return ""  # the tool refuses the path itself

    def _path_lock(self, path: str) -> threading.Lock:
        with self._lock:
            return self._path_locks.setdefault(path, threading.Lock())

    def _before(self, path: str, tool: str, ctx: "ToolContext") -> _Pending | None:
        run_id = self._ensure_run()
        with self._lock:
            self._next_change[run_id] = change_id = self._next_change.get(run_id, 0) + 1
            protect = set(self._open)
            version = self._version
        try:
            created = files.missing_parents(self.workspace, path)
            taken = files.snapshot(self.workspace, path,
                                   lambda source, size: self.store.keep_blob(run_id, change_id, source, size, protect))
            if taken is None:
                return None  # not a regular file: the tool refuses it
            before, stored = taken
            task = self._task_of(ctx.actor)
            self.store.append_change(run_id, {
                "id": change_id, "phase": "before", "ts": time.time(), "actor": ctx.actor, "task": task,
                "version": version, "tool": tool, "path": path, "before": before.to_json(), "stored": stored,
                "created_dirs": created,
            })
        except (ToolError, OSError):
            # The tool meets a problem with the path itself and reports it; a
            # store that cannot be written must not stop the work either.
            return None
        if ctx.bus is not None:
            ctx.bus.publish(ev.CheckpointSaved(ctx.actor, run_id, task, path, tool, before.exists, stored))
        return _Pending(run_id, change_id, path, before)

    def written_in_run(self) -> tuple[frozenset[Path], int | None]:
        """The files tools changed in the current (or last) run, resolved,
        and when that run began (None before the first run)."""
        with self._lock:
            return frozenset(self._written), self._run_started_ns

    def _after(self, item: _Pending) -> None:
        with self._lock:
            self._written.add(Path(os.path.realpath(self.workspace / item.path)))
        try:
            after = files.current_state(self.workspace, item.path)
        except (ToolError, OSError):
            after = FileState(True, "", None, 0)  # unreadable now: an undo will ask first
        try:
            self.store.append_change(item.run_id, {"id": item.change_id, "phase": "after", "after": after.to_json()})
        except OSError:
            pass  # read back as a change paicli stopped during: an undo asks first
