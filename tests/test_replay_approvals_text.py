"""`paicli replay SESSION --text` says what the person decided: a write
approved as is, and one approved with edits, are approved (never "not
approved"); a declined one is not. Recorded by a real Session in ASK mode
over the scripted model, replayed by the real CLI."""

from __future__ import annotations

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
from paicli_tui.policy.approval import ApprovalAnswer, Decision
from paicli_tui.session.live import Session
from tests.support.cli import paicli_env, run_paicli

pytestmark = pytest.mark.timeout(60)


class Answers:
    def __init__(self, *answers: ApprovalAnswer) -> None:
        self.answers = list(answers)

    def request(self, request) -> ApprovalAnswer:
        return self.answers.pop(0)


def test_replay_text_reports_approved_and_edited_writes_as_approved(tmp_path, paicli_home):
    ws = tmp_path / "ws"
    ws.mkdir()
    script = Script({"react": [
        Reply(tool_calls=[("write_file", {"path": "a.txt", "content": "one\n"})]),
        Reply(tool_calls=[("write_file", {"path": "b.txt", "content": "two\n"})]),
        Reply(tool_calls=[("write_file", {"path": "c.txt", "content": "three\n"})]),
        Reply(content="done"),
    ]})
    settings = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0,
                        approval_mode="ask")
    answers = Answers(ApprovalAnswer(Decision.YES), ApprovalAnswer(Decision.EDIT, edited="two, edited\n"),
                      ApprovalAnswer(Decision.NO, reason="not c"))
    session = Session(settings, ws, approver=answers, transport=ScriptedTransport(script))
    try:
        session.start_react("write three files").result(timeout=30)
    finally:
        session.close()
    assert (ws / "b.txt").read_text() == "two, edited\n" and not (ws / "c.txt").exists()

    replay = run_paicli(["replay", str(session.ledger.path), "--text"], home=paicli_home, cwd=ws,
                        env=paicli_env(paicli_home))
    assert replay.returncode == 0, replay.stderr
    printed = replay.stdout + replay.stderr
    assert "write_file approved with your edits" in printed
    assert printed.count("not approved") == 1 and "not approved: not c" in printed
