"""SESSION lookup and `paicli sessions`."""

from __future__ import annotations

import json

import pytest

from paicli_tui.cli import main as paicli
from paicli_tui.records.ledger import ledger_dir
from paicli_tui.llm.offline.scripted import Reply, Script
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
    assert (team.mode, team.goal, team.outcome, len(team.runs)) == ("team", "A then B, and C", "completed", 1)
    assert (react.mode, react.goal, react.outcome, react.tokens) == ("react", "say hi", "completed", 19)


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
    assert {"time", "mode", "goal", "outcome", "tokens", "path", "run_count", "runs"} <= set(data[0])
    assert [(r["index"], r["kind"], r["outcome"]) for r in data[0]["runs"]] == [(1, "team", "completed")]


def test_no_sessions_yet(capsys):
    assert not ledger_dir().exists() or not list(ledger_dir().glob("*.jsonl"))
    assert paicli(["sessions", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


@pytest.mark.parametrize("command", [["verify"], ["report"], ["replay", "--text"]])
def test_an_unknown_session_is_one_line_and_exit_1(command, capsys):
    assert paicli([*command, "20990101-000000-abcdef"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("paicli: no session '20990101-000000-abcdef'")


def _app_session(tmp_path, goals: list[str], script: Script):
    """Like the app: one session, several runs one after another."""
    from paicli_tui.config.settings import Settings
    from paicli_tui.llm.offline.scripted import ScriptedTransport
    from paicli_tui.session.live import Session
    from paicli_tui.policy.approval import AutoApprover

    workspace = tmp_path / "app-ws"
    workspace.mkdir(exist_ok=True)
    config = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0)
    session = Session(config, workspace, approver=AutoApprover(), transport=ScriptedTransport(script))
    try:
        for goal in goals:
            session.start_react(goal).result(timeout=20)
    finally:
        session.close()
    return session.ledger.path


def test_a_session_of_several_runs_lists_each_run_under_it(tmp_path, capsys):
    path = _app_session(tmp_path, ["first ask", "second ask"],
                        Script({"react": [Reply(content="one"), Reply(content="two")]}))
    (summary,) = list_sessions()
    assert [(r.index, r.goal, r.outcome) for r in summary.runs] == [(1, "first ask", "completed"),
                                                                    (2, "second ask", "completed")]
    assert summary.goal == "first ask" and summary.tokens == sum(r.tokens for r in summary.runs)
    assert paicli(["sessions"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith(path.stem) and out[1].endswith("2 runs")
    assert out[2].split()[:4] == ["run", "1", out[2].split()[2], "react"] and out[2].endswith("first ask")
    assert out[3].lstrip().startswith("run 2") and out[3].endswith("second ask")


def test_launches_that_ran_nothing_are_hidden_unless_asked(tmp_path, capsys):
    _app_session(tmp_path, [], Script({}))
    ran = record(tmp_path, "react", "say hi", Script({"react": [Reply(content="hi")]}))
    assert paicli(["sessions"]) == 0
    captured = capsys.readouterr()
    assert [line.split()[0] for line in captured.out.splitlines()[1:]] == [ran.stem]
    assert "1 launch of the app with no run hidden: --all shows them" in captured.err
    assert paicli(["sessions", "--all", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["run_count"] for d in data] == [1, 0]
