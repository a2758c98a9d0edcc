"""The model's API key, held in paicli's memory rather than its environment.

A process's environment is readable by anything that can read
``/proc/<pid>/environ`` (a command outside the sandbox, a debugger, a
crash reporter), and ``os.environ.pop`` does not change that: the kernel
shows the block the process started with. So the key is read once, its
bytes in that block are overwritten, the variable is removed, and the value
lives on only here. Capture before any thread starts: the overwrite races
with a concurrent ``getenv``."""

from __future__ import annotations

import ctypes
import os
import sys
import threading

_lock = threading.Lock()
_captured: dict[str, str] = {}


def _wipe_in_place(name: str) -> None:
    """Zero the value's bytes where libc keeps them (for a variable from
    the start-up environment: the block /proc/self/environ shows)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None)
        libc.getenv.restype = ctypes.c_void_p
        pointer = libc.getenv(os.fsencode(name))
        if pointer:
            ctypes.memset(pointer, 0, len(ctypes.string_at(pointer)))
    except (OSError, AttributeError):
        pass


def capture(name: str) -> str | None:
    """Take ``name`` out of the environment (if it is there) and keep its
    value; the value, or None when it was never set or is empty. A name
    set again later (a test's monkeypatch) is taken again."""
    if not name:
        return None
    with _lock:
        value = os.environ.get(name)
        if value is not None:
            _wipe_in_place(name)
            os.environ.pop(name, None)
            _captured[name] = value
        return _captured.get(name) or None


def read(name: str) -> str | None:
    """The key's value: from the environment if set there, else captured."""
    if not name:
        return None
    value = os.environ.get(name)
    if value is not None:
        return value or None
    with _lock:
        return _captured.get(name) or None


def captured() -> dict[str, str]:
    """Every captured name and value (MCP servers configured in config.toml
    may be given the key by name)."""
    with _lock:
        return dict(_captured)


def forget_all() -> None:
    """Drop every captured value (tests: one test's key is not the next one's)."""
    with _lock:
        _captured.clear()
