"""Working out an undo and carrying it out.

An undo of a run (or of one task of it) puts every file it changed back to
its state before the first of those changes. A file is *changed since* when
what is there now is not what the last of those changes left: someone else
(a later task or turn, the person, a command) wrote it after. Such a file is
skipped unless the person says to overwrite it. The undo's own writes are
recorded like any tool's, so an undo can itself be undone.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from paicli_tui import events as ev
from paicli_tui.checkpoints import files
from paicli_tui.checkpoints.store import Change, CheckpointStore, FileState, RunRecord
from paicli_tui.tools.base import ToolError
from paicli_tui.tools.files import unified_diff
from paicli_tui.tools.confinement import looks_binary

if TYPE_CHECKING:
    from paicli_tui.checkpoints.recorder import CheckpointRecorder

#: Larger files are described, not diffed.
DIFF_CAP_BYTES = 2 * 2**20
#: How many runs an undo list offers.
LIST_LIMIT = 50


def same(a: FileState | None, b: FileState | None) -> bool:
    """Same content (the mode is not compared: a chmod alone is no conflict)."""
    if a is None or b is None:
        return False
    return a.exists == b.exists and (not a.exists or a.sha256 == b.sha256)


@dataclass(frozen=True)
class FileRevert:
    path: str
    run_id: str
    target: FileState
    """The state the undo restores (before the first change)."""
    expected: FileState | None
    """What the last change left (None: unknown, paicli stopped during it)."""
    current: FileState
    change_ids: tuple[int, ...]
    restorable: bool
    created_dirs: tuple[str, ...] = ()
    changed_by: str = ""
    """Who changed it since, when it was: "task_2 in the same run", "a later turn", "hand or by a command"."""

    @property
    def status(self) -> str:
        """ok | done (already as it was) | changed (since) | lost (content not kept)."""
        if same(self.current, self.target):
            return "done"
        if not self.restorable:
            return "lost"
        if not same(self.current, self.expected):
            return "changed"
        return "ok"

    @property
    def conflict(self) -> str:
        match self.status:
            case "changed" if self.expected is None:
                return "paicli stopped during this change: what is there now was not recorded"
            case "changed":
                return f"changed since by {self.changed_by}"
            case "lost":
                return "its old content was not kept (over the checkpoint size limit)"
        return ""


@dataclass(frozen=True)
class RevertPlan:
    run: RunRecord
    task: str
    """The task or step the undo is limited to ("" for the whole run)."""
    files: tuple[FileRevert, ...]
    commands: tuple[str, ...]
    """Who ran commands in scope: what those changed is not undone."""
    version: int | None = None
    """With ``task``: the plan version the task belongs to (ids restart per version)."""

    @property
    def empty(self) -> bool:
        return not any(f.status != "done" for f in self.files)

    @property
    def conflicts(self) -> list[FileRevert]:
        return [f for f in self.files if f.status == "changed"]

    def title(self) -> str:
        """``/plan add tests · task_2``, ``turn fix the typo``."""
        return run_label(self.run) + (f" · {self.task}" if self.task else "")


@dataclass
class RevertResult:
    restored: list[str] = field(default_factory=list)
    overwritten: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)

    def summary(self) -> str:
        parts = []
        if self.restored or self.overwritten:
            count = len(self.restored) + len(self.overwritten)
            parts.append(f"restored {count} file{'s' if count != 1 else ''}")
        if self.overwritten:
            parts.append(f"overwrote changes made since in {', '.join(self.overwritten)}")
        if self.skipped:
            parts.append(f"kept {', '.join(self.skipped)} (changed since)")
        for path, error in self.failed:
            parts.append(f"could not restore {path}: {error}")
        return "; ".join(parts) or "nothing to undo"


@dataclass(frozen=True)
class Actor:
    """Who an undo's writes are recorded for (a ToolContext also fits)."""

    actor: str
    bus: Any = None


class Reverter:
    """Plans and applies undos for one workspace's store."""

    def __init__(self, store: CheckpointStore, recorder: "CheckpointRecorder | None" = None) -> None:
        self.store = store
        self.workspace = store.workspace
        self.recorder = recorder
        self._lock = threading.Lock()

    def runs(self, limit: int = LIST_LIMIT) -> list[RunRecord]:
        """Runs that changed files or ran commands, newest first."""
        return [run for run in self.store.runs(limit * 2) if run.effective or run.commands][:limit]

    def latest(self, *, session: str | None = None, exclude: Iterable[str] = ()) -> RunRecord | None:
        """The newest run with changes not undone yet, undos aside."""
        skip = set(exclude)
        for run in self.store.runs():
            if run.run_id in skip or run.kind == "undo" or (session is not None and run.session != session):
                continue
            if run.pending:
                return run
        return None

    def plan(self, run: RunRecord, task: str = "", version: int | None = None) -> RevertPlan:
        scope = [c for c in run.pending
                 if not task or (c.task == task and (version is None or c.version == version))]
        by_path: dict[str, list[Change]] = {}
        for change in scope:
            by_path.setdefault(change.path, []).append(change)
        later = self._later_changes(run)
        reverts = []
        for path, changes in sorted(by_path.items()):
            first, last = changes[0], changes[-1]
            restorable = first.stored or not first.before.exists
            current = files.current_state(self.workspace, path)
            newer = [c for c in later.get(path, [])
                     if c.run_id != run.run_id or (c.id > last.id and c not in scope)]
            who = _who(newer[-1], run) if newer else "hand or by a command"
            created = tuple(d for c in changes for d in c.created_dirs)
            reverts.append(FileRevert(path, run.run_id, first.before, last.after, current,
                                      tuple(c.id for c in changes), restorable, created, who))
        commands = tuple(w for w in run.commands if not task or w == task)
        return RevertPlan(run, task, tuple(reverts), commands, version)

    def _later_changes(self, run: RunRecord) -> dict[str, list[Change]]:
        """Changes to each path made after ``run`` started (its own included)."""
        found: dict[str, list[Change]] = {}
        for other in reversed(self.store.runs()):
            if other.started < run.started:
                continue
            for change in other.effective:
                found.setdefault(change.path, []).append(change)
        return found

    def diff(self, item: FileRevert) -> str:
        """What the undo would do to the file, as a unified diff (now → restored),
        or one line when it cannot be shown as text."""
        now = files.read_current(self.workspace, item.path, DIFF_CAP_BYTES) if item.current.exists else b""
        if item.target.exists and not item.restorable:
            return "its old content was not kept: it cannot be restored"
        then = self.store.blob(item.run_id, item.change_ids[0]) if item.target.exists else b""
        if now is None:
            now = b""
        if len(now) > DIFF_CAP_BYTES or len(then) > DIFF_CAP_BYTES:
            return f"a large file: {_size(item.current)} now → {_size(item.target)} restored"
        old, new = _text(now), _text(then)
        if old is None or new is None:
            return f"a binary file: {_size(item.current)} now → {_size(item.target)} restored"
        if not item.target.exists:
            return f"deletes {item.path} (the run created it)\n" + unified_diff(old, "", item.path)
        if not item.current.exists:
            return f"recreates {item.path}\n" + unified_diff("", new, item.path)
        return unified_diff(old, new, item.path)

    def apply(self, plan: RevertPlan, *, overwrite: Iterable[str] = (), actor: Actor | Any = None,
              bus: ev.EventBus | None = None, by: str = "", tool: str = "undo") -> RevertResult:
        """Restore every file of ``plan`` that is ``ok``, and the changed
        ones named in ``overwrite``. The state is looked at again first: a
        file changed after the plan was shown counts as changed."""
        allowed = set(overwrite)
        result = RevertResult()
        reverted: list[int] = []
        with self._lock:
            run = self.store.run(plan.run.run_id) or plan.run
            fresh = self.plan(run, plan.task, plan.version)
            wanted = {f.path for f in plan.files}
            for item in fresh.files:
                if item.path not in wanted:
                    continue
                status = item.status
                if status == "done":
                    reverted.extend(item.change_ids)
                    continue
                if status == "lost" or (status == "changed" and item.path not in allowed):
                    result.skipped.append(item.path)
                    continue
                try:
                    self._restore(item, actor, tool)
                except (ToolError, OSError) as exc:
                    result.failed.append((item.path, str(exc)))
                    continue
                (result.overwritten if status == "changed" else result.restored).append(item.path)
                reverted.extend(item.change_ids)
            if reverted:
                self.store.append_revert(plan.run.run_id, sorted(reverted), by, result.overwritten)
        if bus is not None:
            who = getattr(actor, "actor", "") or "session"
            bus.publish(ev.ChangesReverted(who, plan.run.run_id, plan.task, tuple(result.restored),
                                           tuple(result.overwritten), tuple(result.skipped),
                                           tuple(p for p, _ in result.failed)))
        return result

    def _restore(self, item: FileRevert, actor: Any, tool: str) -> None:
        data = self.store.blob(item.run_id, item.change_ids[0]) if item.target.exists else None
        if self.recorder is None or actor is None:
            files.restore(self.workspace, item.path, item.target, data, item.created_dirs)
            return
        with self.recorder.recording(tool, [item.path], actor):  # holds the file's lock
            if not same(files.current_state(self.workspace, item.path), item.current):
                raise ToolError("it changed while the undo ran; run the undo again to see how")
            files.restore(self.workspace, item.path, item.target, data, item.created_dirs)


def run_label(run: RunRecord) -> str:
    """How a person names a run: its kind and the first line of its goal."""
    kind = {"react": "turn", "undo": "undo"}.get(run.kind, f"/{run.kind}")
    goal = run.goal.splitlines()[0] if run.goal else ""
    return f"{kind} {goal}".rstrip()


def _who(change: Change, run: RunRecord) -> str:
    if change.run_id == run.run_id:
        return f"{change.task or change.actor} in the same run"
    return "a later turn" if change.task == "" else f"{change.task} of a later run"


def _text(data: bytes) -> str | None:
    if looks_binary(data[:8192]):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _size(state: FileState) -> str:
    if not state.exists:
        return "no file"
    return f"{state.size} bytes"
