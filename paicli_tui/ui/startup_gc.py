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

Each full collection freezes what survives it, so the next one walks only
what was made since: after a long session a walk of every object took
300–800 ms, met by the first key after any pause. What the frozen objects
later drop in cycles (a closed screen's widgets) is reclaimed by the deep
collection (``collect_deep``), which thaws everything first; the app runs
it after DEEP_QUIET_S with nothing drawn once enough was frozen, or at the
next quiet moment once far more was.
"""

from __future__ import annotations

import gc
import time

#: Seconds without a frame before the app runs a full collection.
QUIET_SECONDS = 1.0
#: A full collection runs at least this often, even in a stream that never pauses.
LONGEST_WITHOUT_FULL_S = 60.0
#: Seconds with nothing drawn before the deep collection.
DEEP_QUIET_S = 30.0
#: Objects frozen since the last deep collection that make another worth it.
DEEP_AFTER_FROZEN = 50_000
#: ... and that make it run at the next quiet moment, however busy the
#: person is: what frozen objects drop in cycles cannot pile up unbounded.
DEEP_AT_ONCE_FROZEN = 500_000
#: Young collections before an automatic full one: never, in practice.
_NEVER = 2**31 - 1

_paused = False
_held: tuple[int, int, int] | None = None  # the thresholds to give back
_last_full = 0.0
# Objects frozen since the start-up freeze or the last deep collection. Not
# the freeze count's growth: frozen objects freed by reference counting
# leave it, and a session that frees many start-up objects would put the
# deep collection off for as many.
_frozen_since_deep = 0


def pause() -> None:
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def freeze_and_resume() -> None:
    """After the first frame: collect once, freeze what is left, resume
    collecting if ``pause`` stopped it."""
    global _paused, _frozen_since_deep
    gc.collect()
    gc.freeze()
    _frozen_since_deep = 0
    if _paused:
        _paused = False
        gc.enable()


def resume() -> None:
    """Collect again if ``pause`` stopped it, freezing nothing: the app
    closed before its first frame."""
    global _paused
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
    """The app is closing: thresholds back, and what it froze thawed, so an
    app run inside another program (tests) leaves no garbage frozen."""
    global _held
    if _held is not None:
        gc.set_threshold(*_held)
        _held = None
        gc.unfreeze()


def holding() -> bool:
    return _held is not None


def full_overdue(now: float | None = None) -> bool:
    now = time.monotonic() if now is None else now
    return _held is not None and now - _last_full >= LONGEST_WITHOUT_FULL_S


def collect_full() -> None:
    """Collect what no earlier collection froze, then freeze the survivors."""
    global _last_full
    gc.collect()
    _freeze_survivors()
    _last_full = time.monotonic()


def _freeze_survivors() -> None:
    global _frozen_since_deep
    before = gc.get_freeze_count()
    gc.freeze()
    _frozen_since_deep += gc.get_freeze_count() - before


def deep_worth_it() -> bool:
    return _frozen_since_deep >= DEEP_AFTER_FROZEN


def deep_overdue() -> bool:
    return _frozen_since_deep >= DEEP_AT_ONCE_FROZEN


def collect_deep() -> None:
    """Walk every object, the frozen ones too, and freeze the survivors again."""
    global _last_full, _frozen_since_deep
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _last_full = time.monotonic()
    _frozen_since_deep = 0
