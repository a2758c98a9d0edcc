"""Running one shell command in its own process group, with a deadline,
cooperative cancellation and a head+tail capped output buffer (P-6.4).

Every group a command starts is kept in ``LIVE_GROUPS`` until nothing in it
runs, so a shutdown (a signal, the session closing) can kill them all even
while the thread running a command is stuck."""

from __future__ import annotations

import os
import secrets
import selectors
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from paicli_tui.tools.command_env import CommandEnvPolicy
from paicli_tui.tools.proc_table import MARKER_VARIABLE, Leftovers, leftovers

HEAD_BYTES = 16 * 1024
TAIL_BYTES = 16 * 1024
POLL_S = 0.05
TERM_GRACE_S = 1.0
#: After the shell exits, how long background children may keep the output
#: pipe open before they are stopped (redirect their output to detach them).
STRAY_GRACE_S = 1.0
#: How long a command's leftover processes get to settle (finish a setsid)
#: before they are reported.
SETTLE_S = 0.2


@dataclass(frozen=True)
class CommandOutcome:
    exit_code: int | None
    output: str
    omitted_bytes: int
    duration_s: float
    stopped: str | None = None
    """None, "timeout", "cancelled" or "stray" (background children killed)."""
    in_group: tuple[int, ...] = ()
    """Processes still running in the command's group after it ended (they
    redirected their output); killed when the session ends."""
    escaped: tuple[int, ...] = ()
    """Processes that left the command's group: no group kill reaches them."""
    errors: str = ""
    """stderr, when it was asked for apart from stdout (hooks read it as the
    reason for a block); otherwise it is merged into ``output``."""


class LiveGroups:
    """The process groups of commands that may still have members: a command
    running now, or background processes one left behind. Thread-safe and
    re-entrant, so a signal handler may kill them while a thread adds one."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._pgids: set[int] = set()

    def add(self, pgid: int) -> None:
        with self._lock:
            self._pgids.add(pgid)

    def discard(self, pgid: int) -> None:
        with self._lock:
            self._pgids.discard(pgid)

    def pgids(self) -> list[int]:
        with self._lock:
            return sorted(self._pgids)

    def kill_all(self) -> list[int]:
        """SIGTERM every group, give them TERM_GRACE_S, SIGKILL what is left.
        Returns the groups that were signalled."""
        pgids = self.pgids()
        for pgid in pgids:
            _signal_group(pgid, signal.SIGTERM)
        deadline = time.monotonic() + TERM_GRACE_S
        while time.monotonic() < deadline and any(_group_alive(pgid) for pgid in pgids):
            time.sleep(POLL_S)
        for pgid in pgids:
            _signal_group(pgid, signal.SIGKILL)
            self.discard(pgid)
        return pgids


LIVE_GROUPS = LiveGroups()


def kill_live_groups() -> list[int]:
    """Kill the process group of every command still running or leaving
    processes behind (shutdown, Session.close)."""
    return LIVE_GROUPS.kill_all()


class CappedBuffer:
    """Keeps the first HEAD and the last TAIL bytes; counts the rest."""

    def __init__(self, head: int = HEAD_BYTES, tail: int = TAIL_BYTES) -> None:
        self._head_cap, self._tail_cap = head, tail
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self._head_cap - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > self._tail_cap:
                del self.tail[: len(self.tail) - self._tail_cap]

    @property
    def omitted(self) -> int:
        return self.total - len(self.head) - len(self.tail)

    def text(self) -> str:
        head = self.head.decode("utf-8", errors="replace")
        if not self.tail:
            return head
        tail = self.tail.decode("utf-8", errors="replace")
        if self.omitted:
            return f"{head}\n… {self.omitted} bytes omitted …\n{tail}"
        return head + tail


def shell_path() -> str:
    return shutil.which("bash") or "/bin/sh"


def run_command(command: str, cwd: Path, timeout_s: float, cancel: threading.Event,
                env: Mapping[str, str] | None = None,
                wrap: Callable[[list[str]], list[str]] | None = None, *, input: bytes | None = None,
                stderr_apart: bool = False) -> CommandOutcome:
    """Run ``command`` under bash in its own group. ``wrap`` turns the
    shell's argv into what is started (the OS sandbox); the filtered
    environment goes to that outer process too, so nothing of paicli's own
    environment is readable from inside. ``input`` is written to its stdin
    (closed otherwise); ``stderr_apart`` keeps stderr out of ``output`` and
    returns it as ``errors``."""
    marker = secrets.token_hex(8)
    started = time.monotonic()
    env = {**(CommandEnvPolicy().build() if env is None else env), "PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
    process = subprocess.Popen(
        (wrap or list)([shell_path(), "-c", command]), cwd=cwd, env={**env, MARKER_VARIABLE: marker},
        stdin=subprocess.DEVNULL if input is None else subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE if stderr_apart else subprocess.STDOUT, start_new_session=True,
    )
    LIVE_GROUPS.add(process.pid)
    if input is not None:
        _feed(process, input)
    buffer, errors = CappedBuffer(), CappedBuffer()
    assert process.stdout is not None
    buffers = {process.stdout.fileno(): buffer}
    if process.stderr is not None:
        buffers[process.stderr.fileno()] = errors
    selector = selectors.DefaultSelector()
    for fd in buffers:
        selector.register(fd, selectors.EVENT_READ)
    open_fds = set(buffers)
    exited_at: float | None = None
    stopped: str | None = None
    try:
        while open_fds or process.poll() is None:
            now = time.monotonic()
            if cancel.is_set():
                stopped = "cancelled"
                break
            if now - started > timeout_s:
                stopped = "timeout"
                break
            if process.poll() is not None:
                exited_at = exited_at or now
                if open_fds and now - exited_at > STRAY_GRACE_S:
                    stopped = "stray"
                    break
            if open_fds:
                for key, _ in selector.select(POLL_S):
                    data = os.read(key.fd, 65536)
                    if data:
                        buffers[key.fd].add(data)
                    else:
                        open_fds.discard(key.fd)
                        selector.unregister(key.fd)
            else:
                cancel.wait(POLL_S)
        if stopped == "stray" and not _group_alive(process.pid):
            stopped = None  # what holds the output left the group: nothing here to stop
        if stopped:
            kill_group(process)
        for fd in buffers:
            if stopped or fd in open_fds:
                _drain(fd, buffers[fd])
    finally:
        selector.close()
        process.stdout.close()
        if process.stderr is not None:
            process.stderr.close()
        if process.poll() is None:
            kill_group(process)
        # Confined, the command's PID namespace ended with it: nothing it
        # started is left, and a scan would only catch processes mid-death.
        left = _NOTHING_LEFT if wrap is not None else _settled_leftovers(process.pid, marker)
        if not left.in_group:
            LIVE_GROUPS.discard(process.pid)
    return CommandOutcome(
        process.returncode, buffer.text(), buffer.omitted, time.monotonic() - started, stopped,
        left.in_group, left.escaped, errors.text(),
    )


_NOTHING_LEFT = Leftovers((), ())


def _feed(process: subprocess.Popen, data: bytes) -> None:
    """Write ``data`` to the command's stdin on a thread of its own: a
    command that never reads must not block the one waiting for its output."""
    assert process.stdin is not None
    pipe = process.stdin

    def write() -> None:
        try:
            pipe.write(data)
        except (BrokenPipeError, OSError):
            pass  # it exited or closed stdin without reading all: its choice
        finally:
            try:
                pipe.close()
            except OSError:
                pass

    threading.Thread(target=write, name="paicli-command-stdin", daemon=True).start()


def _settled_leftovers(pgid: int, marker: str):
    """What the command left running. A child caught between its fork and
    its ``setsid`` still counts as in the group: look again a moment later."""
    left = leftovers(pgid, marker)
    if left.in_group:
        time.sleep(SETTLE_S)
        left = leftovers(pgid, marker)
    return left


def kill_group(process: subprocess.Popen) -> None:
    """SIGTERM the whole group, give it a moment, then SIGKILL what is left."""
    pgid = process.pid  # start_new_session made the shell the group leader
    _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + TERM_GRACE_S
    while time.monotonic() < deadline:
        process.poll()  # reap the leader so a zombie does not count as alive
        if not _group_alive(pgid):
            break
        time.sleep(POLL_S)
    _signal_group(pgid, signal.SIGKILL)
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(pgid: int) -> bool:
    """Whether any non-zombie process is left in the group. Zombies count as
    gone: their reaper may be a PID 1 that never reaps."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # fields: state, ppid, pgrp, …
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False


def _drain(fd: int, buffer: CappedBuffer) -> None:
    """Collect what the killed processes wrote last, without blocking on a
    pipe some escaped process may still hold."""
    os.set_blocking(fd, False)
    deadline = time.monotonic() + 0.5
    while time.monotonic() < deadline:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            time.sleep(POLL_S)
            continue
        except OSError:
            return
        if not data:
            return
        buffer.add(data)
