"""The hand-over queue between engine threads and the UI (P-7.6)."""

from __future__ import annotations

import threading

from paicli_tui import events as ev
from paicli_tui.ui.bridge.event_pump import EventPump, TextRun
from tests.support.timing import scaled


def delta(actor: str, text: str, kind: str = "content", call: str = "c1") -> ev.ModelDelta:
    return ev.ModelDelta(actor, call, kind, text)


def test_consecutive_deltas_of_one_stream_become_one_run():
    pump = EventPump()
    for piece in ("Hel", "lo", " there"):
        pump.put(delta("react", piece))
    [run] = pump.drain()
    assert isinstance(run, TextRun) and run.text == "Hello there" and run.key == ("react", "c1", "content")
    assert pump.drain() == []


def test_interleaved_actors_each_keep_one_run_in_order():
    pump = EventPump()
    for piece in ("a", "b"):
        pump.put(delta("task_1", piece))
        pump.put(delta("task_2", piece.upper()))
    items = pump.drain()
    assert [(i.actor, i.text) for i in items] == [("task_1", "ab"), ("task_2", "AB")]


def test_other_events_close_the_actor_run_and_keep_their_place():
    pump = EventPump()
    pump.put(delta("react", "thinking", kind="reasoning"))
    pump.put(delta("react", "answer"))
    started = ev.ToolCallStarted("react", "t1", "read_file", "{}")
    pump.put(started)
    pump.put(delta("react", " more"))
    items = pump.drain()
    assert [getattr(i, "text", i) for i in items] == ["thinking", "answer", started, " more"]


def test_a_new_model_call_starts_a_new_run():
    pump = EventPump()
    pump.put(delta("react", "one", call="c1"))
    pump.put(delta("react", "two", call="c2"))
    assert [i.call_id for i in pump.drain()] == ["c1", "c2"]


def test_many_threads_lose_nothing_and_keep_each_actor_in_order():
    pump = EventPump()
    actors = [f"worker-{n}" for n in range(4)]

    def produce(actor: str) -> None:
        for i in range(2_000):
            pump.put(delta(actor, f"{i},"))
            if i % 500 == 0:
                pump.put(ev.AgentNote(actor, f"note {i}"))

    threads = [threading.Thread(target=produce, args=(a,)) for a in actors]
    for thread in threads:
        thread.start()
    collected: list = []
    while any(t.is_alive() for t in threads):
        collected += pump.drain()
    for thread in threads:
        thread.join(timeout=scaled(10))
    collected += pump.drain()
    for actor in actors:
        text = "".join(i.text for i in collected if isinstance(i, TextRun) and i.actor == actor)
        assert text == "".join(f"{i}," for i in range(2_000))
        notes = [i.text for i in collected if isinstance(i, ev.AgentNote) and i.actor == actor]
        assert notes == [f"note {i}" for i in (0, 500, 1000, 1500)]
    assert len(collected) < 4 * 2_000  # merged, not one item per token


def test_a_stalled_ui_sheds_old_text_but_keeps_events():
    pump = EventPump(max_pending=10)
    for i in range(30):
        pump.put(delta(f"a{i}", "x"))
        pump.put(ev.AgentNote("engine", f"n{i}"))
    items = pump.drain()
    assert [i.text for i in items if isinstance(i, ev.AgentNote)] == [f"n{i}" for i in range(30)]
    assert pump.dropped == 30 - sum(isinstance(i, TextRun) for i in items)
    assert pump.dropped > 0


def test_the_waker_is_called_once_per_empty_to_queued_transition_from_many_threads():
    pump = EventPump()
    calls = []
    pump.set_waker(lambda: calls.append(threading.get_ident()))

    def produce(actor: str) -> None:
        for n in range(200):
            pump.put(delta(actor, str(n)))
            pump.put(delta(actor, "x", call=f"other-{n}"))

    threads = [threading.Thread(target=produce, args=(f"task_{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1  # nobody drained: one wake for the whole burst
    assert pump.drain()
    pump.put(delta("react", "again"))
    pump.put(delta("react", " and again"))
    assert len(calls) == 2


def test_no_waker_no_call_and_a_cleared_waker_is_not_called():
    pump = EventPump()
    pump.put(delta("react", "a"))
    calls = []
    pump.set_waker(lambda: calls.append(1))
    pump.set_waker(None)
    pump.drain()
    pump.put(delta("react", "b"))
    assert calls == []
