"""The bubblewrap command line that confines one command.

The file system is read-only except the workspace (and the paths the person
made writable); credential stores and paicli's own config and data
directories are hidden; /tmp is private; the command gets its own PID, IPC
and UTS namespaces and, unless allowed, no network. As root bwrap would run
in its "privileged" mode and leave every capability to the command (it
could unmount the hidden paths or remount / read-write), so a user
namespace is always made and every capability dropped."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

#: Always first: a user namespace without capabilities, no nested ones.
CONFINE = ("--unshare-user", "--disable-userns", "--cap-drop", "ALL")
NAMESPACES = ("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try")
#: --die-with-parent: the namespace goes when paicli kills bwrap or dies;
#: --new-session: the command cannot push keystrokes into paicli's terminal.
LIFETIME = ("--die-with-parent", "--new-session")
BASE_MOUNTS = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")


@dataclass(frozen=True)
class Profile:
    workspace: Path
    writable: tuple[Path, ...] = ()
    """More read-write paths: a worktree's git directory, configured caches."""
    hidden: tuple[Path, ...] = ()
    """Paths to hide: a directory becomes an empty tmpfs, a file /dev/null."""


def _depth(path: str) -> int:
    return len(Path(path).parts)


def _existing(path: Path) -> str | None:
    """The real path bwrap can mount on, or None: it cannot mount on a
    missing destination or through a symlink."""
    real = os.path.realpath(path)
    return real if os.path.exists(real) else None


def mount_args(profile: Profile) -> list[str]:
    """Mount options, parents before children: a workspace under /tmp is
    bound after /tmp's tmpfs, a credential dir inside the workspace is
    hidden after the workspace's bind."""
    ops: list[tuple[str, tuple[str, ...]]] = [("/tmp", ("--tmpfs", "/tmp"))]
    if os.path.isdir("/var/tmp"):
        ops.append(("/var/tmp", ("--tmpfs", "/var/tmp")))
    bound = set()
    for path in (profile.workspace, *profile.writable):
        real = _existing(path)
        if real is not None:
            bound.add(real)
            ops.append((real, ("--bind", real, real)))
    for path in profile.hidden:
        real = _existing(path)
        if real is None or real == "/" or real in bound:
            continue
        if os.path.isdir(real):
            ops.append((real, ("--tmpfs", real)))
        else:
            ops.append((real, ("--ro-bind", "/dev/null", real)))
    ops.sort(key=lambda op: _depth(op[0]))  # stable: same-depth order kept
    return [arg for _, args in ops for arg in args]


def bwrap_argv(binary: str, profile: Profile, command: list[str], *, network: bool) -> list[str]:
    """The full argv: bwrap, its options, then the command."""
    argv = [binary, *CONFINE, *NAMESPACES, *LIFETIME, *BASE_MOUNTS, *mount_args(profile)]
    if not network:
        argv.append("--unshare-net")
    argv += ["--chdir", os.path.realpath(profile.workspace), "--", *command]
    return argv
