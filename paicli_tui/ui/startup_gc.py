"""The garbage collector held off while the app starts.

Importing the app and building its first screen allocates some 80,000
objects that all live as long as the app; the collector's passes over
them cost the first frame 50–80 ms and free nothing. It is paused before
the imports and, after the first frame, the survivors are frozen out of
later passes and collection resumes."""

from __future__ import annotations

import gc

_paused = False


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
