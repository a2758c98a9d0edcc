"""The run record (P-8.1): one fsynced JSON line per event, private files,
no secrets, torn lines skipped."""

from __future__ import annotations

import json
import stat
import threading

from paicli_tui.events import AgentNote, EventBus, ModelDelta, ModelError
from paicli_tui.records.ledger import Ledger, ledger_path, read_ledger

FAKE_KEY = "sk-FAKEKEY-0123456789abcdef"


def test_lines_carry_the_envelope_and_are_private(paicli_home):
    bus = EventBus("s1", mode="plan")
    ledger = Ledger(bus)
    bus.publish(AgentNote("task_1", "hello"))
    ledger.close()
    path = ledger_path("s1")
    assert path == paicli_home / "history" / "raw" / "s1.jsonl"
    (line,) = [json.loads(raw) for raw in path.read_text().splitlines()]
    assert line["v"] == 1 and line["session"] == "s1" and line["seq"] == 1 and line["mode"] == "plan"
    assert line["actor"] == "task_1" and line["event"] == "agent_note" and line["payload"] == {"text": "hello"}
    assert isinstance(line["ts"], float)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_deltas_are_not_written_one_by_one(paicli_home):
    bus = EventBus("s2")
    ledger = Ledger(bus)
    for i in range(50):
        bus.publish(ModelDelta("react", "c1", "content", f"t{i}"))
    bus.publish(AgentNote("react", "end"))
    ledger.close()
    lines = list(read_ledger(ledger_path("s2")))
    assert [line.event for line in lines] == ["agent_note"]


def test_sequence_is_gapless_under_concurrent_publishers(paicli_home):
    bus = EventBus("s3")
    ledger = Ledger(bus)
    threads = [
        threading.Thread(target=lambda n=n: [bus.publish(AgentNote(f"w{n}", str(i))) for i in range(50)])
        for n in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ledger.close()
    seqs = [line.data["seq"] for line in read_ledger(ledger_path("s3"))]
    assert seqs == list(range(1, 201))


def test_a_secret_never_reaches_the_file(paicli_home):
    bus = EventBus("s4")
    ledger = Ledger(bus, redact=(FAKE_KEY,))
    bus.publish(ModelError("react", "c1", "auth", f"server echoed {FAKE_KEY}"))
    ledger.close()
    text = ledger_path("s4").read_text()
    assert FAKE_KEY not in text and "[REDACTED]" in text


def test_torn_last_line_is_skipped_with_a_warning(paicli_home):
    bus = EventBus("s5")
    ledger = Ledger(bus)
    bus.publish(AgentNote("a", "one"))
    bus.publish(AgentNote("a", "two"))
    ledger.close()
    path = ledger_path("s5")
    with path.open("a") as handle:
        handle.write('{"v": 1, "seq": 3, "event": "agent_no')
    warnings: list[str] = []
    lines = list(read_ledger(path, warnings))
    assert [line.payload["text"] for line in lines] == ["one", "two"]
    assert len(warnings) == 1 and ":3:" in warnings[0]
