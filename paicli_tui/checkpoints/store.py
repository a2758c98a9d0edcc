"""Checkpoints on disk, one folder per workspace in the data dir.

    <data dir>/checkpoints/<sha256 of the workspace path, 16 hex>/
        workspace                 the workspace path (for people)
        runs/<run id>/run.json    the run: session, kind, goal, start, end, who ran commands
        runs/<run id>/changes.jsonl  one line before each change, one after it
        runs/<run id>/reverts.jsonl  which changes an undo restored
        runs/<run id>/blobs/<n>   the bytes of file n before change n

Folders are 0700 and files 0600 (a file's old content can be as private as
the file). The store is bounded by ``max_bytes``: before a new blob is kept
the oldest finished runs are deleted until it fits; a blob that cannot fit
even then is not kept and its change is marked as not restorable. The
workspace is never touched here: reading and writing its files is
``files.py``'s job.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from paicli_tui.policy.redaction import redact_secret_shapes
from typing import BinaryIO, Iterator

from paicli_tui.config.paths import data_dir

DEFAULT_MAX_BYTES = 256 * 2**20
#: A run that never recorded its end (another paicli still running, or one
#: that crashed) is spared by pruning for this long.
OPEN_RUN_GRACE_S = 24 * 3600
CHUNK = 1 << 20


def workspace_key(workspace: Path) -> str:
    return hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()[:16]


def checkpoints_root(workspace: Path) -> Path:
    return data_dir() / "checkpoints" / workspace_key(workspace)


@dataclass(frozen=True)
class FileState:
    exists: bool
    sha256: str = ""
    mode: int | None = None
    size: int = 0

    def to_json(self) -> dict:
        return {"exists": self.exists, "sha256": self.sha256, "mode": self.mode, "size": self.size}

    @classmethod
    def from_json(cls, data: dict | None) -> "FileState | None":
        if not isinstance(data, dict):
            return None
        return cls(bool(data.get("exists")), str(data.get("sha256") or ""), data.get("mode"), int(data.get("size") or 0))


MISSING = FileState(False)


@dataclass(frozen=True)
class Change:
    """One tool's change to one file."""

    run_id: str
    id: int
    ts: float
    actor: str
    task: str
    version: int
    tool: str
    path: str
    before: FileState
    stored: bool
    """The before content is kept (False: it did not fit the size bound)."""
    after: FileState | None
    """None when the tool never reported back (paicli stopped mid-change)."""
    created_dirs: tuple[str, ...] = ()
    """Parent folders the change created (removed again by an undo, if empty)."""

    @property
    def effective(self) -> bool:
        return self.after is None or self.after != self.before


@dataclass(frozen=True)
class RunRecord:
    run_id: str
    session: str
    kind: str
    goal: str
    started: float
    ended: float | None
    commands: tuple[str, ...]
    """Who ran commands in the run ("react", "task_2"): changes no checkpoint covers."""
    changes: tuple[Change, ...] = ()
    reverted: frozenset[int] = field(default_factory=frozenset)
    """Ids of changes an undo restored."""

    @property
    def effective(self) -> list[Change]:
        return [c for c in self.changes if c.effective]

    @property
    def pending(self) -> list[Change]:
        """Changes not undone yet."""
        return [c for c in self.effective if c.id not in self.reverted]

    @property
    def files(self) -> list[str]:
        return sorted({c.path for c in self.effective})


def redact_secret_shapes_only(text: str) -> str:
    return redact_secret_shapes(text)[0]


class CheckpointStore:
    """Thread-safe: one lock guards every write and the size count."""

    def __init__(self, workspace: Path, root: Path | None = None, *, max_bytes: int = DEFAULT_MAX_BYTES,
                 redact: Callable[[str], str] | None = None) -> None:
        self.workspace = Path(workspace).resolve()
        #: Applied to the text stored with a run (its goal): a key typed
        #: into a goal must not sit in clear in the data directory.
        self.redact = redact or redact_secret_shapes_only
        self.root = root or checkpoints_root(self.workspace)
        self.max_bytes = max_bytes
        self._lock = threading.RLock()
        self._total: int | None = None

    # -- layout ------------------------------------------------------------------

    @property
    def runs_dir(self) -> Path:
        return self.root / "runs"

    def _run_dir(self, run_id: str) -> Path:
        if not run_id or "/" in run_id or run_id.startswith("."):
            raise ValueError(f"bad run id {run_id!r}")
        return self.runs_dir / run_id

    def _ensure(self, path: Path) -> Path:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(path, 0o700)
        return path

    def _setup(self) -> None:
        if not (self.root / "workspace").exists():
            self._ensure(self.root.parent)
            self._ensure(self.root)
            _write_private(self.root / "workspace", (str(self.workspace) + "\n").encode())
        self._ensure(self.runs_dir)

    # -- writing -----------------------------------------------------------------

    def open_run(self, run_id: str, session: str, kind: str, goal: str) -> None:
        with self._lock:
            self._setup()
            self._ensure(self._run_dir(run_id))
            self._write_meta(run_id, {"run_id": run_id, "session": session, "kind": kind, "goal": self.redact(goal),
                                      "started": time.time(), "ended": None, "commands": []})

    def close_run(self, run_id: str) -> None:
        with self._lock:
            meta = self._meta(run_id)
            if meta is not None:
                meta["ended"] = time.time()
                self._write_meta(run_id, meta)

    def note_commands(self, run_id: str, who: str) -> None:
        with self._lock:
            meta = self._meta(run_id)
            if meta is not None and who not in meta["commands"]:
                meta["commands"].append(who)
                self._write_meta(run_id, meta)

    def append_change(self, run_id: str, line: dict) -> None:
        self._append(run_id, "changes.jsonl", line)

    def append_revert(self, run_id: str, change_ids: list[int], by: str, overwrote: list[str]) -> None:
        self._append(run_id, "reverts.jsonl", {"ts": time.time(), "changes": change_ids, "by": by,
                                               "overwrote": overwrote})

    def keep_blob(self, run_id: str, change_id: int, source: BinaryIO, size: int, protect: set[str]) -> tuple[bool, str, int]:
        """Copy ``source`` (a file of about ``size`` bytes) into the run's
        blobs, making room by pruning first. Returns (kept, sha256, bytes
        read); when it cannot fit, the source is only hashed."""
        with self._lock:
            fits = self._make_room(size, protect | {run_id})
            if fits:
                self._total = (self._total or 0) + size
        digest = hashlib.sha256()
        read = 0
        if not fits:
            for chunk in iter(lambda: source.read(CHUNK), b""):
                digest.update(chunk)
                read += len(chunk)
            return False, digest.hexdigest(), read
        blobs = self._ensure(self._run_dir(run_id) / "blobs")
        path = blobs / str(change_id)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as out:
            for chunk in iter(lambda: source.read(CHUNK), b""):
                digest.update(chunk)
                read += len(chunk)
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        with self._lock:
            self._total = (self._total or 0) + read - size
        return True, digest.hexdigest(), read

    def blob(self, run_id: str, change_id: int) -> bytes:
        return (self._run_dir(run_id) / "blobs" / str(change_id)).read_bytes()

    # -- size bound ----------------------------------------------------------------

    def total_bytes(self) -> int:
        with self._lock:
            if self._total is None:
                self._total = _tree_size(self.runs_dir)
            return self._total

    def recount(self) -> int:
        """Forget the cached size (another paicli may have written since)."""
        with self._lock:
            self._total = None
            return self.total_bytes()

    def _make_room(self, size: int, protect: set[str]) -> bool:
        if size > self.max_bytes:
            return False
        if self.total_bytes() + size <= self.max_bytes:
            return True
        for meta in sorted(self._metas(), key=lambda m: m.get("started") or 0):
            if self.total_bytes() + size <= self.max_bytes:
                break
            run_id = str(meta.get("run_id"))
            if run_id in protect:
                continue
            if meta.get("ended") is None and time.time() - (meta.get("started") or 0) < OPEN_RUN_GRACE_S:
                continue
            self._delete_run(run_id)
        return self.total_bytes() + size <= self.max_bytes

    def _delete_run(self, run_id: str) -> None:
        path = self._run_dir(run_id)
        freed = _tree_size(path)
        shutil.rmtree(path, ignore_errors=True)
        self._total = max(0, self.total_bytes() - freed)

    # -- reading -------------------------------------------------------------------

    def runs(self, limit: int | None = None) -> list[RunRecord]:
        """Runs newest first (by start time)."""
        metas = sorted(self._metas(), key=lambda m: m.get("started") or 0, reverse=True)
        if limit is not None:
            metas = metas[:limit]
        return [self._record(meta) for meta in metas]

    def run(self, run_id: str) -> RunRecord | None:
        meta = self._meta(run_id)
        return self._record(meta) if meta is not None else None

    def _record(self, meta: dict) -> RunRecord:
        run_id = str(meta["run_id"])
        changes = _merge_changes(run_id, self._lines(run_id, "changes.jsonl"))
        reverted = frozenset(i for line in self._lines(run_id, "reverts.jsonl")
                             for i in line.get("changes", []) if isinstance(i, int))
        return RunRecord(run_id, str(meta.get("session", "")), str(meta.get("kind", "")), str(meta.get("goal", "")),
                         float(meta.get("started") or 0), meta.get("ended"), tuple(meta.get("commands") or ()),
                         tuple(changes), reverted)

    def _metas(self) -> Iterator[dict]:
        try:
            folders = list(self.runs_dir.iterdir())
        except OSError:
            return
        for folder in folders:
            meta = self._meta(folder.name)
            if meta is not None:
                yield meta

    def _meta(self, run_id: str) -> dict | None:
        try:
            data = json.loads((self._run_dir(run_id) / "run.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("run_id") != run_id:
            return None
        data["commands"] = [c for c in data.get("commands") or [] if isinstance(c, str)]
        return data

    def _lines(self, run_id: str, name: str) -> list[dict]:
        try:
            text = (self._run_dir(run_id) / name).read_text(encoding="utf-8")
        except OSError:
            return []
        lines = []
        for raw in text.splitlines():
            try:
                line = json.loads(raw)
            except ValueError:
                continue  # a torn last line: the change it began is read as unfinished
            if isinstance(line, dict):
                lines.append(line)
        return lines

    # -- files -----------------------------------------------------------------------

    def _write_meta(self, run_id: str, meta: dict) -> None:
        path = self._run_dir(run_id) / "run.json"
        temp = path.with_name(f".run.{threading.get_ident()}.tmp")
        _write_private(temp, json.dumps(meta).encode())
        os.replace(temp, path)

    def _append(self, run_id: str, name: str, line: dict) -> None:
        data = (json.dumps(line) + "\n").encode()
        with self._lock:
            folder = self._ensure(self._run_dir(run_id))
            fd = os.open(folder / name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                os.write(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            if self._total is not None:
                self._total += len(data)


def _merge_changes(run_id: str, lines: list[dict]) -> list[Change]:
    befores: dict[int, dict] = {}
    afters: dict[int, FileState | None] = {}
    for line in lines:
        number = line.get("id")
        if not isinstance(number, int):
            continue
        if line.get("phase") == "before":
            befores[number] = line
        elif line.get("phase") == "after":
            afters[number] = FileState.from_json(line.get("after"))
    changes = []
    for number, line in sorted(befores.items()):
        before = FileState.from_json(line.get("before")) or MISSING
        changes.append(Change(run_id, number, float(line.get("ts") or 0), str(line.get("actor", "")),
                              str(line.get("task", "")), int(line.get("version") or 0), str(line.get("tool", "")),
                              str(line.get("path", "")), before, bool(line.get("stored")), afters.get(number),
                              tuple(str(d) for d in line.get("created_dirs") or ())))
    return changes


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())


def _tree_size(path: Path) -> int:
    total = 0
    for folder, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.stat(os.path.join(folder, name), follow_symlinks=False).st_size
            except OSError:
                pass
    return total
