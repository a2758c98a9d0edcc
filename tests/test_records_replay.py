"""Rebuilding events from the ledger, the replay timeline and player, and
the text replay against the live headless printer."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pytest

from paicli_tui import events as ev
from paicli_tui.events import EventBus
from paicli_tui.present.headless import TextPrinter
from paicli_tui.records.ledger import Ledger, LedgerLine, read_ledger
from paicli_tui.records.player import Timed, deltas_of, play, timeline
from paicli_tui.records.rebuild import event_classes, rebuild
from paicli_tui.present.text_replay import replay_text

pytestmark = pytest.mark.timeout(30)

DOCS = Path(__file__).resolve().parent.parent / "docs" / "ledger.md"
SAMPLES = {"str": "x", "int": 3, "float": 1.5, "bool": True, "dict": {"a": [1, 2]}}


def _sample(cls):
    values = {}
    for f in dataclasses.fields(cls):
        if f.name == "ts":
            continue
        kind = str(f.type).split(" |")[0]
        if kind.startswith("tuple[dict"):
            values[f.name] = ({"id": "c1", "name": "read_file", "arguments": "{}"},)
        elif kind.startswith("tuple"):
            values[f.name] = ("a", "b")
        else:
            values[f.name] = SAMPLES[kind]
    return cls(**values)


def test_every_event_class_round_trips_through_the_ledger(tmp_path):
    bus = EventBus("s1", mode="team")
    ledger = Ledger(bus, tmp_path / "s1.jsonl")
    originals = [_sample(cls) for cls in event_classes().values() if cls is not ev.ModelDelta]
    for event in originals:
        bus.publish(event)
    ledger.close()
    warnings: list[str] = []
    rebuilt = [event for _, event in rebuild(read_ledger(tmp_path / "s1.jsonl"), warnings)]
    assert rebuilt == originals and not warnings


def test_the_vocabulary_is_documented():
    text = DOCS.read_text(encoding="utf-8")
    for name, cls in event_classes().items():
        assert f"| `{name}` |" in text, f"docs/ledger.md does not document {name}"
        row = next(line for line in text.splitlines() if line.startswith(f"| `{name}` |"))
        for field in dataclasses.fields(cls):
            if field.name not in ("actor", "ts"):  # ts is the line's, documented in the envelope
                assert f"`{field.name}`" in row, f"docs/ledger.md: {name} lacks {field.name}"


def test_unknown_events_and_missing_fields_are_skipped_with_a_warning():
    lines = [
        LedgerLine(1, {"event": "from_the_future", "actor": "x", "payload": {}}),
        LedgerLine(2, {"event": "dispatch", "actor": "task_1", "payload": {"worker": "w"}}),
        LedgerLine(3, {"event": "dispatch", "actor": "task_1", "payload": {"task_id": "task_1", "worker": "w", "extra": 1}}),
    ]
    warnings: list[str] = []
    pairs = rebuild(lines, warnings)
    assert [event for _, event in pairs] == [ev.TaskDispatched("task_1", "task_1", "w", 1)]
    assert warnings == ["line 1: unknown event 'from_the_future' skipped", "line 2: dispatch without 'task_id' skipped"]


def _line(number, ts, event):
    return LedgerLine(number, {"ts": ts, "event": event.name, "actor": event.actor, "payload": json.loads(json.dumps(event.payload()))})


def test_responses_are_restreamed_as_deltas_between_request_and_response():
    response = ev.ModelResponse("react", "c1", "x" * 50, "think", ({"id": "t", "name": "grep", "arguments": '{"q": 1}'},), "stop", 1, 1, 0, 2.0)
    lines = [
        _line(1, 100.0, ev.ModelRequest("react", "c1", "m", (), 1, "h")),
        _line(2, 101.0, ev.AgentNote("other", "meanwhile")),
        _line(3, 102.0, response),
    ]
    items = timeline(lines)
    deltas = [i.event for i in items if isinstance(i.event, ev.ModelDelta)]
    assert "".join(d.text for d in deltas if d.kind == "content") == "x" * 50
    assert [d.kind for d in deltas] == ["reasoning", "content", "content", "content", "tool_call"]
    assert deltas[-1].tool == "grep" and deltas == deltas_of(response)
    assert isinstance(items[-1].event, ev.ModelResponse) and items[-1].at == 2.0
    times = [i.at for i in items]
    assert times == sorted(times) and items[0].at == 0.0
    # the other actor's note, recorded mid-call, is played mid-stream
    kinds = [type(i.event).__name__ for i in items]
    assert 1 < kinds.index("AgentNote") < len(kinds) - 2
    # every event carries the time it happened at: recorded, or for a
    # re-streamed piece the time it is played at
    assert [i.event.ts for i in items] == [100.0 + i.at for i in items]


def test_published_events_are_stamped_once_and_the_ledger_line_carries_that_time(tmp_path):
    now = [10.0]
    bus = EventBus("s1", clock=lambda: now[0])
    ledger = Ledger(bus, tmp_path / "s1.jsonl")
    seen: list[ev.Event] = []
    bus.subscribe(seen.append)
    fresh, recorded = ev.AgentNote("a", "new"), ev.AgentNote("a", "old", ts=3.5)
    bus.publish(fresh)
    now[0] = 11.0
    bus.publish(recorded)
    ledger.close()
    assert [e.ts for e in seen] == [10.0, 3.5]
    assert fresh == ev.AgentNote("a", "new") and "ts" not in fresh.payload()  # no part of equality or payload
    lines = list(read_ledger(tmp_path / "s1.jsonl"))
    assert [line.data["ts"] for line in lines] == [10.0, 3.5]
    assert [event.ts for _, event in rebuild(lines)] == [10.0, 3.5]


def test_a_clock_step_back_never_reorders_the_record():
    lines = [_line(1, 50.0, ev.AgentNote("a", "1")), _line(2, 49.0, ev.AgentNote("a", "2")), _line(3, 51.0, ev.AgentNote("a", "3"))]
    assert [(i.at, i.event.text) for i in timeline(lines)] == [(0.0, "1"), (0.0, "2"), (1.0, "3")]


class FakeTime:
    """A clock that moves only when the player waits, recording each wait."""

    def __init__(self) -> None:
        self.now = 0.0
        self.waits: list[float] = []

    def clock(self) -> float:
        return self.now

    def is_set(self) -> bool:
        return False

    def wait(self, seconds: float) -> bool:
        self.waits.append(round(seconds, 6))
        self.now += seconds
        return False


def _items(*times):
    return [Timed(t, ev.AgentNote("a", str(t)), n) for n, t in enumerate(times, 1)]


@pytest.mark.parametrize(("speed", "waits"), [(1.0, [1.0, 2.0]), (2.0, [0.5, 1.0]), (None, [])])
def test_speed_scales_the_recorded_gaps_and_instant_never_waits(speed, waits):
    fake, seen = FakeTime(), []
    assert play(_items(0.0, 1.0, 3.0), seen.append, speed=speed, cancel=fake, clock=fake.clock)
    assert fake.waits == waits and [e.text for e in seen] == ["0.0", "1.0", "3.0"]


def test_a_cancelled_playback_stops():
    import threading

    stop = threading.Event()
    seen: list = []
    stop.set()
    assert play(_items(0.0, 1.0), seen.append, speed=1.0, cancel=stop) is False and seen == []
    with pytest.raises(ValueError):
        play(_items(0.0), seen.append, speed=0)


def test_text_replay_prints_what_the_live_run_printed(tmp_path):
    """The live printer and the replay see the same kinds of events; with
    streamed react content the text is identical too."""
    from paicli_tui.config.settings import Settings
    from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
    from paicli_tui.session.live import Session
    from paicli_tui.policy.approval import AutoApprover

    (tmp_path / "notes.txt").write_text("alpha\n", encoding="utf-8")
    script = Script({"react": [Reply(tool_calls=[("read_file", {"path": "notes.txt"})]), Reply(content="It says alpha, all of it " * 4)]})
    settings = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0)
    session = Session(settings, tmp_path, approver=AutoApprover(), transport=ScriptedTransport(script))
    live_out, live_err = io.StringIO(), io.StringIO()
    session.bus.subscribe(TextPrinter(live_out, live_err))
    try:
        session.start_react("what is in notes.txt?").result(timeout=20)
    finally:
        session.close()
    out, err = io.StringIO(), io.StringIO()
    assert replay_text(session.ledger.path, out, err)
    lines = out.getvalue().splitlines(keepends=True)
    assert lines[0] == "▷ run 1 · react · you: what is in notes.txt?\n" and lines[-1] == "■ run 1 completed\n"
    assert "".join(lines[1:-1]) == live_out.getvalue() and err.getvalue() == live_err.getvalue()
    assert "→ [react] read_file" in out.getvalue() and "It says alpha, all of it" in out.getvalue()


def test_a_text_replay_of_an_app_session_shows_each_input_and_a_plan_cancelled_at_review(tmp_path):
    from paicli_tui.config.settings import Settings
    from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
    from paicli_tui.plan.review import ReviewDecision
    from paicli_tui.session.live import Session
    from paicli_tui.policy.approval import AutoApprover

    class Cancels:
        def review(self, plan, goal):
            return ReviewDecision("cancel")

        def report_error(self, message):
            raise AssertionError(message)

    settings = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0)
    script = Script({"react": [Reply(content="hello back")],
                     "planner": [Reply(content='{"tasks": [{"id": "a", "description": "x", "dependencies": []}]}')]})
    session = Session(settings, tmp_path, approver=AutoApprover(), transport=ScriptedTransport(script),
                      plan_reviewer=Cancels())
    try:
        session.start_react("say hello\nand wave").result(timeout=20)
        session.start_plan("make a plan").result(timeout=20)
    finally:
        session.close()
    out = io.StringIO()
    replay_text(session.ledger.path, out, io.StringIO())
    marks = [line for line in out.getvalue().splitlines() if line.startswith(("▷", "■", "  and"))]
    assert marks == ["▷ run 1 · react · you: say hello", "  and wave", "■ run 1 completed",
                     "▷ run 2 · plan · you: make a plan", "■ run 2 cancelled at review: the plan never ran"]
