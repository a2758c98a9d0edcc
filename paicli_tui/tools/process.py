"""Running one shell command in its own process group, with a deadline,
cooperative cancellation and a head+tail capped output buffer (P-6.4)."""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from paicli_tui.tools.command_env import CommandEnvPolicy

HEAD_BYTES = 16 * 1024
TAIL_BYTES = 16 * 1024
POLL_S = 0.05
TERM_GRACE_S = 1.0
#: After the shell exits, how long background children may keep the output
#: pipe open before they are stopped (redirect their output to detach them).
STRAY_GRACE_S = 1.0


@dataclass(frozen=True)
class CommandOutcome:
    exit_code: int | None
    output: str
    omitted_bytes: int
    duration_s: float
    stopped: str | None = None
    """None, "timeout", "cancelled" or "stray" (background children killed)."""


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
                env: Mapping[str, str] | None = None) -> CommandOutcome:
    started = time.monotonic()
    env = {**(CommandEnvPolicy().build() if env is None else env), "PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
    process = subprocess.Popen(
        [shell_path(), "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )
    buffer = CappedBuffer()
    assert process.stdout is not None
    fd = process.stdout.fileno()
    selector = selectors.DefaultSelector()
    selector.register(fd, selectors.EVENT_READ)
    pipe_open = True
    exited_at: float | None = None
    stopped: str | None = None
    try:
        while pipe_open or process.poll() is None:
            now = time.monotonic()
            if cancel.is_set():
                stopped = "cancelled"
                break
            if now - started > timeout_s:
                stopped = "timeout"
                break
            if process.poll() is not None:
                exited_at = exited_at or now
                if pipe_open and now - exited_at > STRAY_GRACE_S:
                    stopped = "stray"
                    break
            if pipe_open:
                if selector.select(POLL_S):
                    data = os.read(fd, 65536)
                    if data:
                        buffer.add(data)
                    else:
                        pipe_open = False
                        selector.unregister(fd)
            else:
                cancel.wait(POLL_S)
        if stopped:
            kill_group(process)
            _drain(fd, buffer)
    finally:
        selector.close()
        process.stdout.close()
        if process.poll() is None:
            kill_group(process)
    return CommandOutcome(process.returncode, buffer.text(), buffer.omitted, time.monotonic() - started, stopped)


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
