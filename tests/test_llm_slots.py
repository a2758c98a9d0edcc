"""One request per server slot, and interrupted replies asked again.

The loopback server plays llama-cpp-python's rule (``interrupting``): a
request that arrives while a reply streams ends that reply with ``[DONE]``
and no finish_reason."""

from __future__ import annotations

import threading
import time

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.events import EventBus, ModelQueued, ModelResponse, ModelRetry
from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.llm.slots import SlotGate, gate_for, server_root
from paicli_tui.llm.types import ModelCancelled, ModelDeadlineError, ModelInterrupted
from tests.support.server import LoopbackServer

#: What makes the loopback server pass for llama-cpp-python (one slot) to the probe.
ONE_SLOT_SERVER = {("GET", "/openapi.json"): {"info": {"title": "🦙 llama.cpp Python API"}, "paths": {}}}


def recording_bus() -> EventBus:
    bus = EventBus("sess-slots")
    bus.events = []
    bus.subscribe(bus.events.append)
    return bus


def slow_reply(text: str) -> Reply:
    return Reply(content=text, chunk_chars=8, chunk_delay=0.02)


def test_an_interrupted_reply_is_asked_again_not_returned_as_a_reply():
    script = Script({"react": [Reply(content="partial answer that gets cut", interrupted_after_chunks=2),
                               Reply(content="the whole answer")]})
    bus = recording_bus()
    with LoopbackServer(script) as server:
        with ChatClient(base_url=server.base_url, model="m", bus=bus, max_retries=0) as client:
            result = client.chat([{"role": "user", "content": "q"}], agent="react")
    assert result.content == "the whole answer"
    assert len(server.requests) == 2
    [retry] = [e for e in bus.events if isinstance(e, ModelRetry)]
    assert "interrupted" in retry.reason and "[DONE] without a finish_reason" in retry.reason


def test_a_reply_interrupted_every_time_fails_with_the_reason():
    script = Script({"react": [Reply(content="cut cut cut", interrupted_after_chunks=1)] * 3})
    with LoopbackServer(script) as server:
        with ChatClient(base_url=server.base_url, model="m", max_retries=0) as client:
            with pytest.raises(ModelInterrupted, match="interrupted"):
                client.chat([], agent="react")
    assert len(server.requests) == 3  # the first try and two interruption retries


def test_without_a_gate_parallel_calls_cut_each_other_off():
    """The failure the gate exists for (shown with the gate switched off)."""
    with LoopbackServer(Script(default=lambda r: slow_reply("word " * 20)), interrupting=True) as server:
        results = _four_parallel_calls(server, Settings(provider="custom", base_url=server.base_url, server_slots=0))
    assert server.peak_in_flight > 1 and server.interrupted > 0


def test_one_slot_serialises_calls_and_announces_the_wait():
    with LoopbackServer(Script(default=lambda r: slow_reply("word " * 20)), routes=ONE_SLOT_SERVER,
                        interrupting=True) as server:
        bus = recording_bus()
        results = _four_parallel_calls(server, Settings(provider="custom", base_url=server.base_url), bus)
    assert server.peak_in_flight == 1 and server.interrupted == 0
    assert results == ["word " * 20] * 4
    assert not [e for e in bus.events if isinstance(e, ModelRetry)]
    queued = [e for e in bus.events if isinstance(e, ModelQueued)]
    assert len(queued) == 3 and {e.slots for e in queued} == {1}
    responses = [e for e in bus.events if isinstance(e, ModelResponse)]
    assert sum(r.queued_s > 0.05 for r in responses) == 3


def _four_parallel_calls(server, settings: Settings, bus: EventBus | None = None) -> list[str]:
    results: list[str] = []
    lock = threading.Lock()

    def call(n: int) -> None:
        # One client per thread, as sessions have: the gate is per server.
        with ChatClient.from_settings(settings.model_copy(update={"max_retries": 0}), session_id=f"s{n}", bus=bus) as client:
            try:
                text = client.chat([{"role": "user", "content": str(n)}], agent=f"worker-{n}").content
            except ModelInterrupted as exc:
                text = str(exc)
        with lock:
            results.append(text)

    threads = [threading.Thread(target=call, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results


def test_time_queued_does_not_count_against_the_call_deadline():
    with LoopbackServer(Script(default=lambda r: Reply(content="ok", delay=0.6)), routes=ONE_SLOT_SERVER) as server:
        settings = Settings(provider="custom", base_url=server.base_url, max_retries=0)
        first = ChatClient.from_settings(settings, session_id="a")
        second = ChatClient.from_settings(settings, session_id="b")
        holder = threading.Thread(target=lambda: first.chat([], agent="a"))
        holder.start()
        time.sleep(0.1)
        # 0.8 s from now: the call waits ~0.5 s for the slot, then needs 0.6 s.
        result = second.chat([], agent="b", deadline=time.monotonic() + 0.8)
        holder.join()
        first.close()
        second.close()
    assert result.content == "ok" and result.queued_s > 0.3


def test_the_hard_deadline_binds_while_queued():
    gate = SlotGate(1)
    gate.acquire()
    with pytest.raises(ModelDeadlineError, match="waiting for the model server"):
        gate.acquire(deadline=time.monotonic() + 0.1)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(ModelCancelled):
        gate.acquire(cancel=cancel)
    gate.release()
    assert gate.acquire() < 0.05


def test_a_server_of_unknown_kind_is_not_held_to_one_slot():
    """Before its probe a local server gets one slot; a server that says
    nothing about slots (a proxy, vLLM) then serves calls side by side."""
    with LoopbackServer(Script(default=lambda r: slow_reply("word " * 20))) as server:
        results = _four_parallel_calls(server, Settings(provider="custom", base_url=server.base_url))
    assert server.peak_in_flight > 1 and results == ["word " * 20] * 4


def test_slots_follow_the_server_and_the_setting():
    assert server_root("http://127.0.0.1:8080/v1") == server_root("http://127.0.0.1:8080") == "http://127.0.0.1:8080"
    assert gate_for("http://127.0.0.1:9/v1", 1) is gate_for("http://127.0.0.1:9", 3)
    assert Settings(provider="llamacpp").slots_for("http://127.0.0.1:8080/v1") == 1
    assert Settings(provider="openai").slots_for("https://api.openai.com/v1") is None
    assert Settings(provider="llamacpp", server_slots=0).slots_for("http://127.0.0.1:8080/v1") is None
    assert Settings(provider="openai", server_slots=2).slots_for("https://api.openai.com/v1") == 2


def test_a_queued_call_that_the_time_left_cannot_cover_is_not_started_and_says_why():
    from paicli_tui.llm.types import ModelNotStarted

    gate = SlotGate(1)
    for seconds in (2.0, 3.0, 2.5):
        gate.record(seconds)
    assert gate.typical_s() == 2.5
    gate.acquire()
    started = time.monotonic()
    with pytest.raises(ModelNotStarted, match=r"not started: \d+s of the time budget left, less than a call takes"):
        gate.acquire(deadline=time.monotonic() + 2.0, need_s=gate.typical_s())
    # Given up at once, not after waiting out the deadline.
    assert time.monotonic() - started < 0.5
    gate.release()


def test_a_client_call_queued_behind_a_slow_one_is_not_started_when_its_run_ends_before_a_call_could():
    from paicli_tui.llm.types import ModelNotStarted

    bus = recording_bus()
    with LoopbackServer(Script(default=lambda r: Reply(content="ok", delay=0.8)), routes=ONE_SLOT_SERVER) as server:
        settings = Settings(provider="custom", base_url=server.base_url, max_retries=0)
        first = ChatClient.from_settings(settings, session_id="a")
        second = ChatClient.from_settings(settings, session_id="b", bus=bus)
        first.chat([], agent="a")  # measures the server: about 0.8 s a call
        holder = threading.Thread(target=lambda: first.chat([], agent="a"))
        holder.start()
        time.sleep(0.1)
        started = time.monotonic()
        with pytest.raises(ModelNotStarted):
            second.chat([], agent="b", hard_deadline=time.monotonic() + 0.6)
        gave_up = time.monotonic() - started
        holder.join()
        first.close()
        second.close()
    assert gave_up < 0.4
    errors = [e for e in bus.events if getattr(e, "name", "") == "model_error"]
    assert [e.kind for e in errors] == ["not_started"]


def test_an_agent_whose_first_call_is_not_started_stops_without_a_summary_call(tmp_path):
    from paicli_tui.agent.budget import Budget, RunBudget
    from paicli_tui.agent.loop import Agent

    script = Script(default=lambda r: Reply(content="ok", delay=0.8))
    with LoopbackServer(script, routes=ONE_SLOT_SERVER) as server:
        settings = Settings(provider="custom", base_url=server.base_url, max_retries=0)
        first = ChatClient.from_settings(settings, session_id="a")
        first.chat([], agent="holder")  # measures the server: about 0.8 s a call
        holder = threading.Thread(target=lambda: first.chat([], agent="holder"))
        holder.start()
        time.sleep(0.1)
        run = RunBudget(max_seconds=0.7)
        agent = Agent("worker-1", client=ChatClient.from_settings(settings, session_id="b"), system_prompt="s",
                      budget=Budget(run=run))
        outcome = agent.run_turn("do it", cancel=threading.Event())
        holder.join()
        first.close()
    assert outcome.status == "partial" and outcome.reason.startswith("not started:")
    assert [r.agent for r in script.requests] == ["holder", "holder"], "no summary call was queued after it"


def test_a_run_stops_starting_tasks_when_the_time_left_cannot_cover_one_call():
    from paicli_tui.agent.budget import RunBudget

    run = RunBudget(max_seconds=3.0)
    assert run.dispatch_limit() is None  # no call measured yet
    run.call_seconds = lambda: 10.0
    kind, words = run.dispatch_limit()
    assert kind == "seconds" and "no new task started" in words and "about 10s" in words
    assert run.exceeded_kind() is None, "agents already at work are not stopped by it"
    run.call_seconds = lambda: 1.0
    assert run.dispatch_limit() is None


def test_the_run_keeps_one_calls_time_for_the_summaries_when_calls_are_slow():
    from paicli_tui.agent.budget import Budget, RunBudget

    run = RunBudget(max_seconds=100.0)
    agent = Budget(run=run)
    assert run.started + 100.0 - agent.work_deadline() == pytest.approx(10.0)
    run.call_seconds = lambda: 25.0
    assert run.started + 100.0 - agent.work_deadline() == pytest.approx(25.0)
    assert "the last 25s kept for the summary" in agent.time_stop()[1]
    run.call_seconds = lambda: 90.0  # never more than 40 % of the run
    assert run.started + 100.0 - agent.work_deadline() == pytest.approx(40.0)
