"""The shared cancel poller (llm/cancel.py): calls add and remove their
watch without a lock, so the poller's start and end must not lose a watch."""

from __future__ import annotations

import threading
import time

import pytest

from paicli_tui.llm import cancel as cancel_mod
from paicli_tui.llm.cancel import CancelWatch, _SharedWatcher

pytestmark = pytest.mark.timeout(20)


class _Recorder(CancelWatch):
    def __init__(self, event: threading.Event) -> None:
        super().__init__(event, None)
        self.fired = threading.Event()

    def fire(self) -> None:
        self.fired.set()


class _EmptyOnce(set):
    """Reports itself empty on the first look only: a watch added right
    after the poller found no calls in flight."""

    def __init__(self, *items) -> None:
        super().__init__(*items)
        self.looks = 0

    def __len__(self) -> int:
        self.looks += 1
        return 0 if self.looks == 1 else super().__len__()


def test_a_watch_added_while_the_poller_ends_keeps_it_polling():
    watcher = _SharedWatcher()
    late = _Recorder(threading.Event())
    watcher._running = True
    watcher._watches = _EmptyOnce({late})
    assert watcher._stop_if_idle() is False
    assert watcher._running is True


def test_an_idle_poller_ends_and_the_next_call_starts_a_new_one(monkeypatch):
    monkeypatch.setattr(cancel_mod, "POLL_SECONDS", 0.005)
    watcher = _SharedWatcher()
    first = _Recorder(threading.Event())
    watcher.add(first)
    watcher.remove(first)
    deadline = time.monotonic() + 5
    while watcher._running and time.monotonic() < deadline:
        time.sleep(0.005)
    assert watcher._running is False, "the poller ends once no call is in flight"
    cancel = threading.Event()
    second = _Recorder(cancel)
    watcher.add(second)
    cancel.set()
    assert second.fired.wait(5), "a new poller serves the next call"
    watcher.remove(second)


def test_only_one_poller_runs_for_many_concurrent_calls(monkeypatch):
    monkeypatch.setattr(cancel_mod, "POLL_SECONDS", 0.005)
    watcher = _SharedWatcher()
    # Thread objects, not idents: a poller left by an earlier test may end
    # just after this look, and the new poller can reuse its ident.
    before = {t for t in threading.enumerate() if t.name == "paicli-cancel-watch"}
    watches = [_Recorder(threading.Event()) for _ in range(50)]
    threads = [threading.Thread(target=watcher.add, args=(w,)) for w in watches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    pollers = {t for t in threading.enumerate() if t.name == "paicli-cancel-watch"} - before
    assert len(pollers) == 1
    for w in watches:
        w._cancel.set()
    assert all(w.fired.wait(5) for w in watches)
    for w in watches:
        watcher.remove(w)
