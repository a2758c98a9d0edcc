"""The real `paicli --demo` in a pseudo-terminal: the bytes a terminal sends
for Shift+Tab (ESC [ Z), Esc and Ctrl+C reach the right bindings."""

from __future__ import annotations

import os
import re
import select
import signal
import struct
import subprocess
import sys
import time

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(60)]

ANSI = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07]*\x07|[()][0-9A-Za-z]|[=>78])")
STEP_DEADLINE = 20.0  # seconds a step may take before the test gives up


class Terminal:
    def __init__(self, argv: list[str], cwd, rows: int = 36, cols: int = 120) -> None:
        import fcntl
        import pty
        import termios

        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(cols), "LINES": str(rows)}
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env,
                                     start_new_session=True)
        os.close(slave)
        self.seen = b""

    def send(self, data: bytes) -> int:
        """Write bytes; returns where in the output what follows begins."""
        mark = len(self._text())
        os.write(self.master, data)
        return mark

    def _text(self) -> bytes:
        return ANSI.sub(b"", self.seen)

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # the child closed the terminal
            return False
        self.seen += chunk
        return bool(chunk)

    def wait_for(self, text: str, since: int = 0) -> None:
        deadline = time.monotonic() + STEP_DEADLINE
        needle = text.encode()
        while needle not in self._text()[since:]:
            if time.monotonic() > deadline or not self._read(0.1) and self.proc.poll() is not None:
                tail = self._text()[-600:].decode(errors="replace")
                raise AssertionError(f"{text!r} never appeared; screen tail: {tail!r}")

    def wait_exit(self) -> int:
        deadline = time.monotonic() + STEP_DEADLINE
        while self.proc.poll() is None and time.monotonic() < deadline:
            self._read(0.1)
        return self.proc.wait(timeout=5)

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=5)
        os.close(self.master)


def test_shift_tab_escape_and_ctrl_c_in_a_real_terminal(tmp_path):
    (tmp_path / "README.md").write_text("# Demo\n\nA tiny project.\n", encoding="utf-8")
    (tmp_path / "main.py").write_text("print('hi')\n", encoding="utf-8")
    term = Terminal([sys.executable, "-m", "paicli_tui", "--demo"], cwd=tmp_path)
    try:
        term.wait_for("shift+tab to cycle")
        term.wait_for("AUTO")
        for mode in ("PLAN", "ASK", "AUTO"):
            term.wait_for(mode, term.send(b"\x1b[Z"))
        term.wait_for("working", term.send(b"what is in this project?\r"))
        term.wait_for("turn cancelled", term.send(b"\x1b"))
        term.wait_for("again to quit", term.send(b"\x03"))
        term.send(b"\x03")
        assert term.wait_exit() == 0
    finally:
        term.close()
