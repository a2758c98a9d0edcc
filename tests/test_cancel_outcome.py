"""A person's cancel is its own outcome (issue 13 item 3): the ledger gets
``model_cancelled``, never a ``model_error``; nothing the person reads names
the endpoint; `paicli run`'s text output says "cancelled"."""

from __future__ import annotations

import io
import threading
import time

from paicli_tui import events as ev
from paicli_tui.config.settings import Settings
from paicli_tui.present.headless import TextPrinter
from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
from paicli_tui.session.live import Session
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.present.event_lines import describe
from tests.support.timing import scaled

BASE_URL = "http://scripted.invalid/v1"


def _cancel_when_streaming(session: Session, seen: list[ev.Event]) -> threading.Thread:
    def watch() -> None:
        deadline = time.monotonic() + scaled(10)
        while time.monotonic() < deadline and not any(isinstance(e, ev.ModelDelta) for e in seen):
            time.sleep(0.01)
        session.cancel()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def _run_cancelled(tmp_path, start) -> tuple[list[ev.Event], object, str]:
    script = Script({"react": [Reply(content="word " * 400, chunk_chars=5, chunk_delay=0.02)],
                     "planner": [Reply(content="{" + " " * 2000 + "}", chunk_chars=5, chunk_delay=0.02)]})
    settings = Settings(provider="custom", base_url=BASE_URL, model="m", max_retries=0)
    session = Session(settings, tmp_path, approver=AutoApprover(), transport=ScriptedTransport(script))
    seen: list[ev.Event] = []
    session.bus.subscribe(seen.append)
    out, err = io.StringIO(), io.StringIO()
    session.bus.subscribe(TextPrinter(out, err))
    try:
        watcher = _cancel_when_streaming(session, seen)
        outcome = start(session).result(timeout=scaled(20))
        watcher.join(timeout=scaled(5))
    finally:
        session.close()
    return seen, outcome, out.getvalue() + err.getvalue()


def test_a_cancelled_react_turn_is_cancelled_not_a_failed_model_call(tmp_path):
    seen, outcome, printed = _run_cancelled(tmp_path, lambda s: s.start_react("write a lot"))
    assert (outcome.kind, outcome.status) == ("react", "cancelled")
    assert not [e for e in seen if isinstance(e, ev.ModelError)]
    (stopped,) = [e for e in seen if isinstance(e, ev.ModelCallCancelled)]
    assert stopped.actor == "react"
    (finished,) = [e for e in seen if isinstance(e, ev.AgentFinished)]
    assert finished.status == "cancelled"
    lines = [describe(e) for e in seen]
    shown = [line.text for line in lines if line is not None]
    assert shown == ["cancelled"]
    assert "scripted.invalid" not in printed and "model call failed" not in printed


def test_a_cancel_while_planning_ends_the_plan_cancelled_with_no_url(tmp_path):
    seen, outcome, printed = _run_cancelled(tmp_path, lambda s: s.start_plan("plan a lot"))
    assert (outcome.kind, outcome.status, outcome.text) == ("plan", "CANCELLED", "cancelled")
    assert not [e for e in seen if isinstance(e, ev.ModelError)]
    assert [e.actor for e in seen if isinstance(e, ev.ModelCallCancelled)] == ["planner"]
    recorded = [e for e in seen if isinstance(e, ev.RunOutcomeRecorded)]
    assert recorded and "scripted.invalid" not in recorded[0].text
    assert "scripted.invalid" not in printed
