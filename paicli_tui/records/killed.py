"""Runs whose process died: noticed at the next start, recorded then.

A live ledger is held with an advisory lock by the process writing it (the
lock goes when the process does, however it ends). A ledger of this
workspace that nobody holds and whose last run has no outcome was left by a
killed process: its run gets the outcome ``killed`` with the cause, so
`paicli sessions`, `report` and `resume` can say what stopped it."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

from paicli_tui.events import EventBus, RunOutcomeRecorded
from paicli_tui.records.ledger import Ledger, ledger_dir, read_ledger
from paicli_tui.records.resume_state import KILLED_STATUS, KILLED_TEXT

#: Bytes read from a ledger's end to find how its last run ended.
_TAIL = 64 * 1024
_OPENERS = ("run_requested", "run_resumed")


def held_by_a_process(path: Path) -> bool:
    """True while some process's ledger holds ``path``."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _first_line(path: Path) -> dict:
    with path.open("rb") as handle:
        try:
            return json.loads(handle.readline() or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError):
            return {}


def _open_run_kind(path: Path) -> str | None:
    """The kind of the ledger's last run when it has no outcome, else None."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        handle.seek(max(0, size - _TAIL))
        tail = handle.read().decode("utf-8", errors="replace").splitlines()
    events = []
    for raw in tail:
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and data.get("event") in (*_OPENERS, "run_outcome"):
            events.append(data)
    if not events and size > _TAIL:
        events = [line.data for line in read_ledger(path) if line.event in (*_OPENERS, "run_outcome")]
    if not events or events[-1].get("event") == "run_outcome":
        return None
    kinds = [e.get("payload", {}).get("kind") for e in events if e.get("event") == "run_requested"]
    return str(kinds[-1] if kinds else "plan")


def note_killed_runs(workspace: Path, directory: Path | None = None) -> list[Path]:
    """Record ``killed`` for this workspace's runs left without an outcome
    by a process that is gone; returns the ledgers written to."""
    folder = directory or ledger_dir()
    if not folder.is_dir():
        return []
    where = str(workspace.resolve())
    noted = []
    for path in folder.glob("*.jsonl"):
        try:
            head = _first_line(path)
            if (head.get("payload") or {}).get("workspace") not in (where, str(workspace)):
                continue
            kind = _open_run_kind(path)
            if kind is None or held_by_a_process(path):
                continue
            bus = EventBus(path.stem, kind)
            ledger = Ledger(bus, path)
            try:
                bus.publish(RunOutcomeRecorded("session", kind, False, KILLED_STATUS, KILLED_TEXT))
            finally:
                ledger.close()
            noted.append(path)
        except OSError:
            continue
    return noted
