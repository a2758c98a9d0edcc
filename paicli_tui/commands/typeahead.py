"""Keys typed while paicli starts keep their meaning.

Until Textual puts the terminal in raw mode (a second or more after the
command, longer on a busy machine) the terminal is in cooked mode: the kernel
turns a typed Return (CR) into a newline (LF) as it arrives (ICRNL), and the
app later reads that LF as Ctrl+J, which the editor takes as "new line", so
a prompt typed ahead was never sent; echo also printed it on the raw screen.
``hold`` switches those off first thing; ``release`` gives the person's
settings back after the app has restored the ones it found (ours).
"""

from __future__ import annotations

import atexit
import sys

_original: list | None = None
_fd: int | None = None


def hold() -> None:
    """No CR→LF, no echo, no line buffering from now on (a no-op off a terminal)."""
    global _original, _fd
    try:
        import termios

        fd = sys.stdin.fileno()
        if not sys.stdin.isatty():
            return
        attrs = termios.tcgetattr(fd)
        held = termios.tcgetattr(fd)
        held[0] &= ~termios.ICRNL
        held[3] &= ~(termios.ECHO | termios.ICANON)
        termios.tcsetattr(fd, termios.TCSANOW, held)
    except (OSError, ValueError, ImportError):
        return
    except Exception as exc:  # termios.error
        if type(exc).__name__ != "error":
            raise
        return
    _original, _fd = attrs, fd
    atexit.register(release)


def original_attrs() -> list | None:
    """The terminal settings from before ``hold`` (None when it held nothing)."""
    return _original


def release() -> None:
    """The person's own terminal settings back (idempotent)."""
    global _original
    if _original is None or _fd is None:
        return
    try:
        import termios

        termios.tcsetattr(_fd, termios.TCSANOW, _original)
    except Exception:  # the terminal went away: nothing to give back
        pass
    _original = None
