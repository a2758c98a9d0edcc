"""SIGTERM and SIGHUP end a run the way Esc does (issue 12).

Closing the terminal (SIGHUP), ``timeout`` and ``docker stop`` (SIGTERM)
used to kill paicli at once, leaving the running command's process group
behind and the run without an outcome in the ledger. With
``SignalShutdown`` installed the first signal only asks for a cancel, and
the program winds down as after Esc: the engine records ``run_cancelled``
and ``run_outcome``, the session kills every command group, and the program
exits with ``128 + signal number`` (143 for SIGTERM, 129 for SIGHUP).

Two things end it at once instead, still killing every command process
group first: a second signal, or ``grace_s`` seconds passing after the
first (a job stuck somewhere uninterruptible must not keep the program
open). The ledger loses nothing then: each of its lines is fsynced.

The same signal again within DUPLICATE_WINDOW_S is not a second signal:
``timeout`` and process managers send it to the process and to its group,
so it arrives twice at once, and taking that as "now" skipped writing
``run_cancelled`` and ``run_outcome``. Once the run has ended and the
handlers are uninstalled, a late duplicate is ignored rather than killing
the exiting process.

Python runs signal handlers in the main thread between bytecodes, so the
handler only records the signal, wakes the watchdog through a pipe and
calls ``on_signal``, which must only schedule work (set a flag, hand a
callback to an event loop): the main thread may hold any lock right then.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Callable, TextIO

from paicli_tui.tools.process import kill_live_groups

#: Seconds the run gets to stop after a cancel before the program exits anyway.
CANCEL_GRACE_S = 10.0
SIGNALS = (signal.SIGTERM, signal.SIGHUP)
#: Seconds within which the same signal again counts as the same one.
DUPLICATE_WINDOW_S = 0.5


def exit_code_for(signum: int) -> int:
    """The shell convention for "ended by signal N"."""
    return 128 + signum


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


class SignalShutdown:
    """Turns SIGTERM/SIGHUP into a cancel, a bounded wind-down and an exit code.

    Install it in the main thread. ``signum`` is the first signal received
    (None until one arrives); ``exit_code`` the code to exit with then."""

    def __init__(
        self,
        grace_s: float = CANCEL_GRACE_S,
        on_signal: Callable[[int], None] | None = None,
        before_exit: Callable[[], None] | None = None,
    ) -> None:
        """``before_exit`` runs just before an immediate exit (e.g. to give
        the terminal back); it must not block."""
        self.grace_s = grace_s
        self.on_signal = on_signal
        self.before_exit = before_exit
        self.signum: int | None = None
        self._first_at = 0.0
        self._previous: dict[int, object] = {}
        self._wake_r, self._wake_w = os.pipe()
        self._watchdog = threading.Thread(target=self._watch, name="paicli-shutdown-watchdog", daemon=True)

    @property
    def exit_code(self) -> int | None:
        return exit_code_for(self.signum) if self.signum is not None else None

    @property
    def reason(self) -> str:
        return f"{signal_name(self.signum or 0)} received"

    def install(self) -> "SignalShutdown":
        """Take over SIGTERM and SIGHUP. Outside the main thread (where
        Python cannot install handlers) this does nothing."""
        if threading.current_thread() is not threading.main_thread():
            return self
        # Started up front: starting a thread inside a handler takes locks
        # the interrupted main thread may hold.
        self._watchdog.start()
        for signum in SIGNALS:
            self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def uninstall(self) -> None:
        """Restore the previous handlers. After a signal the watchdog stays
        armed: exiting may still hang on a stuck thread."""
        for signum, previous in self._previous.items():
            # After a signal the process is on its way out with 128+N: a late
            # duplicate (see the module doc) must not kill it first.
            signal.signal(signum, signal.SIG_IGN if self.signum is not None else previous)  # type: ignore[arg-type]
        self._previous.clear()
        if self.signum is None:
            _write_quietly(self._wake_w, b"q")

    def _handle(self, signum: int, frame) -> None:
        if self.signum is not None:
            if signum == self.signum and time.monotonic() - self._first_at < DUPLICATE_WINDOW_S:
                return
            exit_now(exit_code_for(self.signum), f"{signal_name(signum)} again while stopping", self.before_exit)
        self.signum, self._first_at = signum, time.monotonic()
        if signum == signal.SIGHUP:
            detach_dead_output()
        _write_quietly(self._wake_w, b"s")
        if self.on_signal is not None:
            self.on_signal(signum)

    def _watch(self) -> None:
        try:
            woken = os.read(self._wake_r, 1)
        except OSError:
            return
        if woken != b"s":
            return
        # Wait on a fresh event: nothing sets it, it is only an interruptible sleep.
        threading.Event().wait(self.grace_s)
        why = f"the run did not stop within {self.grace_s:g} s of {signal_name(self.signum or 0)}"
        exit_now(self.exit_code or 1, why, self.before_exit)


def exit_now(code: int, why: str, before_exit: Callable[[], None] | None = None) -> None:
    """Kill every command process group, then leave without waiting for
    any thread (a stuck one would keep the interpreter from exiting)."""
    try:
        kill_live_groups()
        if before_exit is not None:
            before_exit()
    except Exception:  # noqa: BLE001 - leaving regardless
        pass
    finally:
        _write_quietly(2, f"paicli: {why}; exiting\n".encode())
        os._exit(code)


def detach_dead_output() -> None:
    """After a hangup the terminal may be gone: writes to it fail with EIO
    and every print would raise. Point stdout and stderr that no longer
    accept writes at /dev/null; ones that still work are left alone."""
    for fd in (1, 2):
        try:
            os.write(fd, b"")
        except OSError:
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, fd)
                os.close(devnull)
            except OSError:
                pass


def _write_quietly(fd: int, data: bytes) -> None:
    try:
        os.write(fd, data)
    except OSError:
        pass


class QuietStream:
    """A text stream whose writes never raise: once the terminal or the pipe
    behind it is gone (a hangup, a reader that quit) output is dropped
    instead of a traceback ending the run."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.broken = False

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                return self._stream.write(text)
            except (OSError, ValueError):
                self.broken = True
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                self.broken = True

    def __getattr__(self, name: str):
        return getattr(self._stream, name)
