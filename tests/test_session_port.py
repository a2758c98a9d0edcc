"""The seam between front ends and the engine: typed input and one port
that the live session, the replay session and the UI tests' fake all
implement."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.plan.parser import parse_plan
from paicli_tui.session.port import (
    AgentTurn, ClearConversation, PlanRun, SessionPort, TeamRun, command_for_input, command_text,
)

PORT_MEMBERS = sorted(
    name for name in {*SessionPort.__annotations__, *vars(SessionPort)}
    if not name.startswith("_")
)


@pytest.mark.parametrize("text, mode, expected", [
    ("/plan tidy the docs", "auto", PlanRun("tidy the docs")),
    ("/team  add tests ", "ask", TeamRun("add tests")),
    ("/PLAN shout", "auto", PlanRun("shout")),
    ("/clear", "plan", ClearConversation()),
    ("what is here?", "auto", AgentTurn("what is here?", ("a.py",))),
    ("what is here?", "plan", PlanRun("what is here?")),
    ("/team x", "plan", TeamRun("x")),
])
def test_input_becomes_one_typed_command(text, mode, expected):
    assert command_for_input(text, mode, ("a.py",)) == expected


def test_a_plan_or_team_run_takes_no_attachments():
    assert command_for_input("/plan g", "auto", ("a.py",)) == PlanRun("g")
    assert command_for_input("g", "plan", ("a.py",)) == PlanRun("g")


@pytest.mark.parametrize("command, text", [
    (AgentTurn("hi"), "hi"), (PlanRun("g"), "/plan g"), (TeamRun("g"), "/team g"), (ClearConversation(), "/clear"),
])
def test_command_text_reads_as_typed(command, text):
    assert command_text(command) == text
    assert command_for_input(text, "auto") == command


def _missing(session) -> list[str]:
    return [name for name in PORT_MEMBERS if not hasattr(session, name)]


def test_the_port_names_what_the_ui_reads():
    for name in ("submit", "cancel", "cancel_task", "bus", "checkpoints", "knowledge", "mcp", "is_replay",
                 "read_only_reason", "model", "usage", "approval_mode", "busy"):
        assert name in PORT_MEMBERS


def test_the_live_session_implements_the_port(tmp_path):
    from paicli_tui.session.live import Session

    session = Session(Settings(provider="demo"), tmp_path)
    try:
        assert _missing(session) == []
        assert session.is_replay is False and session.read_only_reason == ""
        assert session.model == session.client.model
    finally:
        session.close()


def test_the_replay_session_implements_the_port(tmp_path):
    from paicli_tui.session.replay import ReplayReadOnly, ReplaySession

    ledger = tmp_path / "s.jsonl"
    ledger.write_text(json.dumps({"v": 1, "ts": 1.0, "session": "s", "mode": "react", "actor": "session",
                                  "event": "session_started", "payload": {}}) + "\n")
    session = ReplaySession(ledger, Settings())
    assert _missing(session) == []
    assert session.checkpoints is None and session.knowledge is None and session.mcp is None
    with pytest.raises(ReplayReadOnly):
        session.submit(AgentTurn("hello"))


def test_the_ui_fake_implements_the_port():
    from tests.ui.fake_session import FakeSession

    assert _missing(FakeSession()) == []


def test_a_plan_file_runs_as_the_kind_its_ids_say(tmp_path):
    from paicli_tui.session.live import Session

    plan = parse_plan('{"steps": [{"id": "a", "description": "look around"}]}', "step")
    session = Session(Settings(provider="demo"), tmp_path)
    try:
        outcome = session.submit(TeamRun("survey", plan)).result(timeout=60)
    finally:
        session.close()
    assert outcome.kind == "team"
    lines = [json.loads(line) for line in Path(session.ledger.path).read_text().splitlines()]
    started = [line for line in lines if line["event"] == "run_started"]
    assert started and all(line["payload"]["kind"] == "team" for line in started)
