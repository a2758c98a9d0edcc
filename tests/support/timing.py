"""Wall-clock allowances that grow with the machine's load.

A test that waits for something (a future, a subprocess, a server starting)
should wait for the condition, with a generous timeout multiplied by
``SCALE``: on a loaded machine (load average 12-20 on 2 cores) everything
takes several times longer, and a fixed 10 s margin fails although nothing
is wrong. ``PAICLI_TEST_TIME_SCALE`` sets the factor by hand.

Tests whose point *is* a wall-clock bound are marked ``timing`` and run
apart (``pytest -m timing -p no:xdist``), not in the default run.
"""

from __future__ import annotations

import os
import time
from typing import Callable

MAX_SCALE = 6.0


def _scale() -> float:
    given = os.environ.get("PAICLI_TEST_TIME_SCALE", "").strip()
    if given:
        try:
            return max(1.0, float(given))
        except ValueError:
            raise SystemExit(f"PAICLI_TEST_TIME_SCALE must be a number, got {given!r}") from None
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this platform
        return 1.0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return min(MAX_SCALE, max(1.0, load / cores))


#: Read once per process (each xdist worker reads it when it starts); the
#: test time limits are set from it at collection.
SCALE = _scale()


def current_scale() -> float:
    """The load factor at start-up or now, whichever is higher (the load
    average lags a load that began just before the suite, such as busy
    loops started first)."""
    return max(SCALE, _scale())


def scaled(seconds: float) -> float:
    """``seconds`` stretched by the machine's load (``current_scale``)."""
    return seconds * current_scale()


def wait_until(condition: Callable[[], object], what: str, timeout: float = 10.0, interval: float = 0.02) -> None:
    """Poll ``condition`` until true, for ``scaled(timeout)`` seconds; the
    AssertionError names ``what`` was awaited."""
    deadline = time.monotonic() + scaled(timeout)
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {scaled(timeout):.0f} s waiting for {what}")
        time.sleep(interval)
