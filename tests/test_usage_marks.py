"""Tokens of a server that sends no usage: the live session's figure is
marked ≈ (what the status bar shows), `paicli sessions` marks them ≈, and a
call nobody counted is "unknown (N calls without usage)", never 0."""

from __future__ import annotations

import json

import pytest

from paicli_tui.cli import main as paicli
from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
from paicli_tui.records.sessions import list_sessions
from tests.support.recorder import record

pytestmark = pytest.mark.timeout(30)


def test_the_live_sessions_usage_is_marked_when_paicli_counted_it(tmp_path):
    from paicli_tui.config.settings import Settings
    from paicli_tui.policy.approval import AutoApprover
    from paicli_tui.session.live import Session
    from paicli_tui.ui.conversation.status_bar import format_usage

    workspace = tmp_path / "ws"
    workspace.mkdir()
    config = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0)
    script = Script({"react": [Reply(content="hello there", usage=None)]})
    session = Session(config, workspace, approver=AutoApprover(), transport=ScriptedTransport(script))
    try:
        session.start_react("say hi").result(timeout=20)
        usage = session.usage
    finally:
        session.close()
    assert usage.estimated and usage.total > 0 and usage.uncounted_calls == 0
    assert format_usage(usage).startswith("in ≈")


def test_sessions_mark_counted_tokens_and_name_calls_nobody_counted(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    record(tmp_path / "a", "react", "count me", Script({"react": [Reply(content="hello", usage=None)]}))
    uncounted = record(tmp_path / "b", "react", "nobody counts", Script({"react": [Reply(content="hi", usage=None)]}))
    # A ledger written before paicli counted tokens itself: no usage, no count.
    lines = [json.loads(line) for line in uncounted.read_text().splitlines()]
    for line in lines:
        if line["event"] == "model_response":
            line["payload"].update(prompt_tokens=0, completion_tokens=0, usage_estimated=False)
    uncounted.write_text("".join(json.dumps(line) + "\n" for line in lines))

    by_goal = {s.goal: s for s in list_sessions()}
    assert by_goal["count me"].estimated_calls == 1 and by_goal["count me"].tokens > 0
    assert by_goal["nobody counts"].uncounted_calls == 1
    assert paicli(["sessions"]) == 0
    rows = {row.split()[-2] + " " + row.split()[-1]: row for row in capsys.readouterr().out.splitlines()[1:]}
    assert "≈" in rows["count me"]
    assert "unknown (1 call without usage)" in rows["nobody counts"]
