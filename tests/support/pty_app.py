"""Drive the real `paicli` in a pseudo-terminal and read its screen.

pyte (a VT100 emulator) turns the app's output bytes into a screen of text,
so the test sees what a person would, after real key bytes went in.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pyte

from tests.support.timing import scaled


class PtyApp:
    """``resizable`` leaves COLUMNS and LINES out of the app's environment:
    they would pin its size (Textual asks ``shutil.get_terminal_size``,
    which reads them before the terminal), so a resize would never reach it."""

    def __init__(self, args: list[str], *, cwd: Path, env: dict[str, str], columns: int = 120, lines: int = 36,
                 resizable: bool = False, program: list[str] | None = None) -> None:
        """``program``: what runs instead of ``python -m paicli_tui`` (a probe
        wrapping it), given ``args`` too."""
        self.screen = pyte.Screen(columns, lines)
        self.stream = pyte.ByteStream(self.screen)
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        self.master = master
        self.proc = subprocess.Popen(
            [*(program or [sys.executable, "-m", "paicli_tui"]), *args],
            cwd=cwd,
            env=self._environment(env, columns, lines, resizable),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
        os.close(slave)

    @staticmethod
    def _environment(env: dict[str, str], columns: int, lines: int, resizable: bool) -> dict[str, str]:
        if resizable:
            return {**{k: v for k, v in env.items() if k not in ("COLUMNS", "LINES")}, "TERM": "xterm-256color"}
        return {**env, "TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(lines)}

    def resize(self, columns: int, lines: int) -> None:
        """What a terminal window does when dragged: the new size on the
        pty, SIGWINCH to the app, and the emulated screen at that size."""
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        self.screen.resize(lines, columns)
        os.killpg(self.proc.pid, signal.SIGWINCH)

    def pump(self, seconds: float = 0.1) -> None:
        deadline = time.monotonic() + seconds
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            ready, _, _ = select.select([self.master], [], [], remaining)
            if not ready:
                return
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self.stream.feed(data)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait_for(self, predicate, timeout: float = 20.0) -> str:
        """Read until ``predicate(screen text)``, for ``timeout`` seconds
        stretched by the machine's load (tests/support/timing.py)."""
        deadline = time.monotonic() + scaled(timeout)
        while time.monotonic() < deadline:
            self.pump(0.1)
            text = self.text()
            if predicate(text):
                return text
            if self.proc.poll() is not None:
                break
        raise AssertionError(f"screen never matched; last screen:\n{self.text()}")

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def type(self, text: str) -> None:
        for char in text:
            self.send(char.encode())
            self.pump(0.01)

    def wait_exit(self, timeout: float = 10.0) -> int | None:
        """The exit code within ``timeout`` seconds (load-scaled), or None."""
        deadline = time.monotonic() + scaled(timeout)
        while time.monotonic() < deadline:
            self.pump(0.05)
            code = self.proc.poll()
            if code is not None:
                return code
        return None

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=5)
        os.close(self.master)
