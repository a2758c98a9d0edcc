"""Which processes a command started are still running, read from /proc.

A command can leave its process group (``setsid``, a daemon's double fork)
and then no group kill reaches it. Every command therefore runs with a
marker variable of its own in its environment, which children inherit
through fork, exec and setsid: at the end the processes carrying it (and
their descendants, in case one cleared its environment) are found wherever
they went. Best effort: a process that drops the marker before it forks
anything, or runs as another user, is not found. Without /proc (not Linux)
nothing is found and nothing is claimed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

MARKER_VARIABLE = "PAICLI_COMMAND_ID"

_PROC = Path("/proc")


@dataclass(frozen=True)
class Leftovers:
    """Live processes a command started, after it ended or was killed."""

    in_group: tuple[int, ...] = ()
    """Still in the command's process group (a group kill reaches them)."""
    escaped: tuple[int, ...] = ()
    """Left the group: a group kill does not reach them."""


@dataclass(frozen=True)
class _Proc:
    pid: int
    ppid: int
    pgid: int


def leftovers(pgid: int, marker: str) -> Leftovers:
    """The live (non-zombie) processes of the command whose group is ``pgid``
    and whose environment carries ``MARKER_VARIABLE=marker``."""
    table = _live_processes()
    if not table:
        return Leftovers()
    needle = f"\0{MARKER_VARIABLE}={marker}\0".encode()
    ours = {p.pid for p in table if p.pgid == pgid or _has_marker(p.pid, needle)}
    # Descendants of what was found: one may have cleared its environment.
    children: dict[int, list[int]] = {}
    for p in table:
        children.setdefault(p.ppid, []).append(p.pid)
    pending = list(ours)
    while pending:
        for child in children.get(pending.pop(), ()):
            if child not in ours:
                ours.add(child)
                pending.append(child)
    by_pid = {p.pid: p for p in table}
    in_group = sorted(pid for pid in ours if by_pid[pid].pgid == pgid)
    escaped = sorted(pid for pid in ours if by_pid[pid].pgid != pgid)
    return Leftovers(tuple(in_group), tuple(escaped))


def _live_processes() -> list[_Proc]:
    if not _PROC.is_dir():
        return []
    found = []
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            # The command name may hold spaces and ")": split after the last one.
            state, ppid, pgrp = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:3]
        except (OSError, ValueError):
            continue  # gone meanwhile, or unreadable
        if state != "Z":
            found.append(_Proc(int(entry.name), int(ppid), int(pgrp)))
    return found


def _has_marker(pid: int, needle: bytes) -> bool:
    try:
        environ = (_PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return False
    return needle in b"\0" + environ
