"""A program in a pseudo-terminal, read through pyte, with its CPU time.

Shared by the benches that must see what a person sees (bench/startup.py,
bench/stream_cpu.py): real terminal bytes in, a VT screen out, and the
process's own CPU seconds from /proc. Reading is select-driven so the bench
never spins on the two cores it shares with the app.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import termios
import time

import pyte

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
#: What Textual writes when it gives the terminal back (leaves the alternate screen).
SCREEN_RELEASED = b"\x1b[?1049l"


def cpu_seconds(pid: int) -> float:
    """User + system CPU of one process (all its threads), from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


class PtyScreen:
    def __init__(self, argv: list[str], *, env: dict[str, str], cwd: str | None = None,
                 columns: int = 120, lines: int = 36) -> None:
        self.screen = pyte.Screen(columns, lines)
        self.stream = pyte.ByteStream(self.screen)
        self.released_at: float | None = None
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        self.master = master
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            argv, cwd=cwd,
            env={**env, "TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(lines)},
            stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
        )
        os.close(slave)

    def pump(self, seconds: float) -> bool:
        """Read what arrives within ``seconds``; True if anything did."""
        ready, _, _ = select.select([self.master], [], [], max(0.0, seconds))
        if not ready:
            return False
        try:
            data = os.read(self.master, 1 << 16)
        except OSError:
            return False
        if not data:
            return False
        if SCREEN_RELEASED in data and self.released_at is None:
            self.released_at = time.perf_counter()
        self.stream.feed(data)
        return True

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait_for(self, predicate, timeout: float) -> float:
        """Read until ``predicate(screen text)``; the perf_counter time it held."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if self.pump(deadline - time.perf_counter()) and predicate(self.text()):
                return time.perf_counter()
            if self.proc.poll() is not None:
                break
        raise TimeoutError(f"screen never matched; last screen:\n{self.text()}")

    def drain_for(self, seconds: float) -> None:
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            self.pump(deadline - time.perf_counter())

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def cpu(self) -> float:
        return cpu_seconds(self.proc.pid)

    def wait_exit(self, timeout: float) -> float | None:
        """perf_counter time the process ended, or None."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            self.pump(0.005)
            if self.proc.poll() is not None:
                return time.perf_counter()
        return None

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=5)
        os.close(self.master)
