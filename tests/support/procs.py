"""Watch and clean up the processes a test's commands start (Linux /proc),
and wait for the program under test to reach a point worth signalling."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from tests.support.timing import scaled


def alive(pid: int) -> bool:
    """True for a running process; a zombie waiting for its reaper is dead."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def group_members(pgid: int) -> list[int]:
    """Live processes whose process group is ``pgid``."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[2] == str(pgid) and fields[0] != "Z":
            members.append(int(entry.name))
    return members


def gone_within(pids: list[int], seconds: float) -> bool:
    deadline = time.monotonic() + scaled(seconds)
    while time.monotonic() < deadline:
        if not any(alive(pid) for pid in pids):
            return True
        time.sleep(0.05)
    return not any(alive(pid) for pid in pids)


def leads_own_session_within(pid: int, seconds: float) -> bool:
    """True once ``pid`` has called setsid: the shell writes ``$!`` as soon
    as it forks, and on a loaded machine the child may not have left the
    group yet when the test acts on it."""
    deadline = time.monotonic() + scaled(seconds)
    while True:
        try:
            if os.getsid(pid) == pid:
                return True
        except ProcessLookupError:
            return False
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def read_pids(path: Path, count: int, seconds: float) -> list[int]:
    """The pids a command wrote to ``path`` (one per line), once it has ``count``."""
    deadline = time.monotonic() + scaled(seconds)
    while time.monotonic() < deadline:
        try:
            pids = [int(word) for word in path.read_text().split()]
        except (OSError, ValueError):
            pids = []
        if len(pids) >= count:
            return pids
        time.sleep(0.05)
    raise AssertionError(f"{path} never held {count} pids")


def kill_quietly(pids: list[int], groups: list[int] = ()) -> None:
    """SIGKILL what a test started, whatever state it is in."""
    for pgid in groups:
        for pid in group_members(pgid):
            kill_quietly([pid])
    for pid in pids:
        if alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def wait_for_ledger_event(home: Path, name: str, seconds: float = 20) -> None:
    """Until the program under ``home`` has recorded an event called ``name``."""
    deadline = time.monotonic() + scaled(seconds)
    while time.monotonic() < deadline:
        for path in (home / "history" / "raw").glob("*.jsonl"):
            if f'"event": "{name}"' in path.read_text(encoding="utf-8"):
                return
        time.sleep(0.05)
    raise AssertionError(f"no {name} in the ledger under {home}")
