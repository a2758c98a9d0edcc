"""A program in a pseudo-terminal, read through pyte, with its CPU time.

Shared by the benches that must see what a person sees (bench/startup.py,
bench/stream_cpu.py): real terminal bytes in, a VT screen out, and the
process's own CPU seconds from /proc. Reading is select-driven so the bench
never spins on the two cores it shares with the app.

A thread reads the terminal as soon as bytes arrive and stamps each chunk;
pyte parses them later, on the bench's own time. Feeding pyte as we read
made the bench a slow terminal: a full repaint took pyte tens of
milliseconds, counted into every latency and, while it parsed, the app's
writes waited on a full pty buffer. A latency is measured to the arrival of
the bytes that made the change (a real terminal parses at hundreds of MB/s).
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import termios
import threading
import time
from collections import deque

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
        self.arrived_at = self.started
        self._chunks: deque[tuple[float, bytes]] = deque()
        self._arrived = threading.Condition()
        self._closing = self._ended = False
        self._reader = threading.Thread(target=self._read_all, name="pty-reader", daemon=True)
        self._reader.start()

    def _read_all(self) -> None:
        while not self._closing:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.master, 1 << 16)
            except OSError:
                break
            if not data:
                break
            now = time.perf_counter()
            if SCREEN_RELEASED in data and self.released_at is None:
                self.released_at = now
            with self._arrived:
                self._chunks.append((now, data))
                self._arrived.notify()
        with self._arrived:
            self._ended = True
            self._arrived.notify()

    def _take(self, seconds: float) -> list[tuple[float, bytes]]:
        with self._arrived:
            if not self._chunks and not self._ended:
                self._arrived.wait(max(0.0, seconds))
            chunks = list(self._chunks)
            self._chunks.clear()
        return chunks

    def pump(self, seconds: float) -> bool:
        """Parse what arrives within ``seconds``; True if anything did."""
        chunks = self._take(seconds)
        for arrived, data in chunks:
            self.stream.feed(data)
            self.arrived_at = arrived
        return bool(chunks)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait_for(self, predicate, timeout: float) -> float:
        """Read until ``predicate(screen text)``; the perf_counter time the
        bytes that made it hold arrived."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            chunks = self._take(deadline - time.perf_counter())
            for n, (arrived, data) in enumerate(chunks):
                self.stream.feed(data)
                self.arrived_at = arrived
                if predicate(self.text()):
                    with self._arrived:  # the rest is parsed by the next read
                        self._chunks.extendleft(reversed(chunks[n + 1:]))
                    return arrived
            if self.proc.poll() is not None and not self._chunks:
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
        self._closing = True
        self._reader.join(1)
        os.close(self.master)
