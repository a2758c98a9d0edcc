""""A file the run itself wrote" for ``sh FILE`` / ``python FILE``: the
checkpoint recorder's list of files the run's tools changed, so an old
mtime set afterwards does not hide one, and the person's own scripts
written before the run are not counted. A real Session in auto mode
without a terminal (asks are denied), real commands."""

from __future__ import annotations

import time

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
from paicli_tui.policy.approval import DenyApprover
from paicli_tui.session.live import Session

pytestmark = pytest.mark.timeout(60)


def _run(tmp_path, replies: list[Reply], before=None) -> tuple[Session, list[str]]:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    config = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0)
    script = Script({"react": replies})
    session = Session(config, workspace, approver=DenyApprover(), transport=ScriptedTransport(script))
    try:
        if before is not None:
            before(workspace)
        assert session.start_react("go").result(timeout=40) is not None
    finally:
        session.close()
    last = script.requests[-1]
    return session, [m["content"] for m in last.messages if m.get("role") == "tool"]


def _command(text: str) -> Reply:
    return Reply(tool_calls=[("execute_command", {"command": text})])


def test_a_script_a_tool_wrote_stays_the_run_s_own_whatever_its_mtime(tmp_path):
    session, results = _run(tmp_path, [
        Reply(tool_calls=[("write_file", {"path": "e.sh", "content": "touch pwned\n"})]),
        _command("touch -d 2001-01-01 e.sh"),
        _command("sh e.sh"),
        Reply(content="done"),
    ])
    assert "a file written by this run" in results[-1], results
    assert not (session.workspace / "pwned").exists()


def test_the_person_s_own_script_written_before_the_run_is_not_the_run_s(tmp_path):
    def person_writes(workspace):
        time.sleep(0.01)  # after the session started, before the run
        (workspace / "mine.sh").write_text("touch built\n")

    session, results = _run(tmp_path, [_command("sh mine.sh"), Reply(content="done")], before=person_writes)
    assert "\nexit code 0\n" in results[-1], results
    assert (session.workspace / "built").exists()
