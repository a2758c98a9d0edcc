"""One index build per workspace at a time, across processes: two
``paicli index`` runs (or a run and the app's /index) would otherwise write
the same SQLite database at once and one would fail on a locked database."""

from __future__ import annotations

import fcntl
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

POLL_S = 0.2


@contextmanager
def index_lock(db_path: Path, cancel: threading.Event | None = None,
               on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the workspace's index lock; wait for another build to finish
    (``on_wait`` is told once), or give up when ``cancel`` is set."""
    db_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(db_path.with_name(db_path.name + ".index.lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not told and on_wait is not None:
                    on_wait()
                told = True
                if cancel is not None and cancel.wait(POLL_S):
                    raise InterruptedError("cancelled while waiting for another index build") from None
                if cancel is None:
                    time.sleep(POLL_S)
        yield
    finally:
        os.close(fd)  # closing releases the lock
