"""The garbage collector, paced by the app.

Importing the app and building its first screen allocates some 80,000
objects that all live as long as the app; the collector's passes over
them cost the first frame 50–80 ms and free nothing. It is paused before
the imports and, after the first frame, the survivors are frozen out of
later passes and collection resumes.

While the app runs, the automatic full collections (the oldest
generation, every live object not frozen) are held: with four panes
streaming they came every ~0.7 s and took 45–260 ms each, the longest
stalls a key met. The young generations are still collected as usual;
the app runs the full collection itself once it is quiet
(``collect_full``), or when one is overdue however busy it is, so cyclic
garbage cannot pile up for long.
"""

from __future__ import annotations

import gc
import time

#: Seconds without a frame before the app runs a full collection.
QUIET_SECONDS = 1.0
#: A full collection runs at least this often, even in a stream that never pauses.
LONGEST_WITHOUT_FULL_S = 60.0
#: Young collections before an automatic full one: never, in practice.
_NEVER = 2**31 - 1

_paused = False
_held: tuple[int, int, int] | None = None  # the thresholds to give back
_last_full = 0.0


def pause() -> None:
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def freeze_and_resume() -> None:
    """After the first frame: collect once, freeze what is left, resume
    collecting if ``pause`` stopped it."""
    global _paused
    gc.collect()
    gc.freeze()
    if _paused:
        _paused = False
        gc.enable()


def hold_full_collections() -> None:
    """Automatic full collections stop until ``release_full_collections``."""
    global _held, _last_full
    if _held is None:
        _held = gc.get_threshold()
        gc.set_threshold(_held[0], _held[1], _NEVER)
        _last_full = time.monotonic()


def release_full_collections() -> None:
    global _held
    if _held is not None:
        gc.set_threshold(*_held)
        _held = None


def holding() -> bool:
    return _held is not None


def full_overdue(now: float | None = None) -> bool:
    now = time.monotonic() if now is None else now
    return _held is not None and now - _last_full >= LONGEST_WITHOUT_FULL_S


def collect_full() -> None:
    global _last_full
    gc.collect()
    _last_full = time.monotonic()
