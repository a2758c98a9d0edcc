"""SESSION lookup and `paicli sessions`."""

from __future__ import annotations

import json

import pytest

from paicli_tui.cli import main as paicli
from paicli_tui.ledger import ledger_dir
from paicli_tui.llm.scripted import Reply, Script
from paicli_tui.records.sessions import SessionNotFound, list_sessions, resolve_session
from tests.support.recorder import record, team_with_retry

pytestmark = pytest.mark.timeout(30)


def _two_sessions(tmp_path):
    first = record(tmp_path, "react", "say hi", Script({"react": [Reply(content="hi")]}))
    second = team_with_retry(tmp_path)
    return first, second


def test_a_session_is_an_id_or_a_path(tmp_path):
    first, _ = _two_sessions(tmp_path)
    assert resolve_session(first.stem) == first
    assert resolve_session(str(first)) == first
    with pytest.raises(SessionNotFound, match=r"no session 'nope' in .*history/raw \(see `paicli sessions`\)"):
        resolve_session("nope")
    with pytest.raises(SessionNotFound, match="no ledger file at"):
        resolve_session(str(tmp_path / "missing.jsonl"))


def test_sessions_are_listed_newest_first_with_mode_goal_outcome_and_tokens(tmp_path):
    first, second = _two_sessions(tmp_path)
    listed = list_sessions()
    assert [s.session for s in listed] == [second.stem, first.stem]
    team, react = listed
    assert (team.mode, team.goal, team.outcome, team.runs) == ("team", "A then B, and C", "COMPLETED", 1)
    assert (react.mode, react.goal, react.outcome, react.tokens) == ("react", "say hi", "final", 19)


def test_the_sessions_command_prints_a_table_and_json(tmp_path, capsys):
    first, second = _two_sessions(tmp_path)
    assert paicli(["sessions"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["SESSION", "TIME", "MODE", "OUTCOME", "TOKENS", "GOAL"]
    assert out[1].startswith(second.stem) and "A then B, and C" in out[1]
    assert out[2].startswith(first.stem) and "say hi" in out[2]
    assert paicli(["sessions", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["session"] for d in data] == [second.stem, first.stem]
    assert {"time", "mode", "goal", "outcome", "tokens", "path"} <= set(data[0])


def test_no_sessions_yet(capsys):
    assert not ledger_dir().exists() or not list(ledger_dir().glob("*.jsonl"))
    assert paicli(["sessions", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


@pytest.mark.parametrize("command", [["verify"], ["report"], ["replay", "--text"]])
def test_an_unknown_session_is_one_line_and_exit_1(command, capsys):
    assert paicli([*command, "20990101-000000-abcdef"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("paicli: no session '20990101-000000-abcdef'")
