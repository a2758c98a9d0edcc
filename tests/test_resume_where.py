"""Resuming in the app goes on where the run's tasks ran, as `paicli
resume` does; a recorded cluster that cannot be used now is one note, and
the run goes on with the session's executor. The interrupted run is a real
team ledger (real Session, scripted model) cut where a kill would cut it."""

from __future__ import annotations

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.offline.scripted import ScriptedTransport
from paicli_tui.records.ledger import read_ledger
from paicli_tui.records.resume_state import read_resume_state
from paicli_tui.records.verify import verify_ledger
from paicli_tui.session.live import Session
from tests.support.recorder import lines_of, record, write_lines
from tests.support.resume_script import ResumeScript

pytestmark = pytest.mark.timeout(90)

STEPS = [("make one", []), ("make two", []), ("make three", [1])]
UNREACHABLE = "ray @ 127.0.0.1:1"


def _interrupted_on(tmp_path, where: str):
    """A team run cut after its first completed step, recorded as run on ``where``."""
    path = record(tmp_path, "team", "make three files", ResumeScript("team", STEPS, delay=0), workers=2,
                  isolation="off")
    lines = lines_of(path)
    at = min(i for i, line in enumerate(lines) if line["event"] == "status"
             and line["payload"].get("status") == "COMPLETED")
    for line in lines[: at + 1]:
        if line["event"] == "run_started":
            line["payload"]["executor"] = where
    return write_lines(path, lines[: at + 1]), tmp_path / "ws"


def _session(workspace) -> Session:
    config = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0,
                      isolation="off", workers=2)
    return Session(config, workspace, transport=ScriptedTransport(ResumeScript("team", STEPS, delay=0)))


def test_a_run_recorded_on_a_cluster_gone_now_goes_on_here_with_one_note(tmp_path):
    ledger, workspace = _interrupted_on(tmp_path, UNREACHABLE)
    state = read_resume_state(ledger)
    assert state.executor == UNREACHABLE
    session = _session(workspace)
    try:
        outcome = session.run_resume(state)
        session.end_resumed_ledger()
    finally:
        session.close()
    assert outcome.status == "COMPLETED", outcome.text
    lines = list(read_ledger(ledger))
    notes = [line.payload["text"] for line in lines if line.event == "agent_note"]
    assert len([n for n in notes if UNREACHABLE in n]) == 1
    assert any(n.endswith("they go on local now") for n in notes), notes
    resumed = [line.payload for line in lines if line.event == "run_resumed"]
    assert [p["executor"] for p in resumed] == ["local"]
    assert session.executor.where == "local"
    assert verify_ledger(ledger).ok


def test_a_run_recorded_here_goes_on_here_without_a_note(tmp_path):
    ledger, workspace = _interrupted_on(tmp_path, "local")
    session = _session(workspace)
    try:
        outcome = session.run_resume(read_resume_state(ledger))
        session.end_resumed_ledger()
    finally:
        session.close()
    assert outcome.status == "COMPLETED", outcome.text
    lines = list(read_ledger(ledger))
    assert not [line for line in lines if line.event == "agent_note" and "they go on" in line.payload["text"]]
    assert [line.payload["executor"] for line in lines if line.event == "run_resumed"] == ["local"]


def test_the_resume_picker_says_where_the_tasks_will_go_on(tmp_path):
    from paicli_tui.ui.resume.picker import detail

    ledger, _ = _interrupted_on(tmp_path, UNREACHABLE)
    assert f"its tasks ran on {UNREACHABLE}: they go on there" in detail(read_resume_state(ledger)).splitlines()
