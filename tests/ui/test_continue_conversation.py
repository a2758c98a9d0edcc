"""`paicli -c` and `paicli --resume SESSION`: the earlier turns are in the
transcript and the ReAct history goes on (the next request carries them),
in the same ledger. Real Session and HTTP client, scripted model."""

from __future__ import annotations

import argparse

import pytest

from paicli_tui.commands.common import CommandError
from paicli_tui.commands.tui import _continued
from paicli_tui.config.settings import Settings
from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
from paicli_tui.records.ledger import read_ledger
from paicli_tui.session.live import Session
from paicli_tui.ui.app import PaicliApp
from tests.support.recorder import record
from tests.ui.conftest import submit, transcript_text
from tests.ui.test_run_screen_flow import until

pytestmark = pytest.mark.timeout(60)


def _args(**given) -> argparse.Namespace:
    return argparse.Namespace(**{"continue_last": False, "resume_session": None, **given})


def _first_session(tmp_path):
    return record(tmp_path, "react", "what is the capital of France?", Script({"react": [Reply(content="Paris.")]}))


@pytest.mark.parametrize("how", ["continue", "resume"])
async def test_the_conversation_goes_on_with_its_transcript_and_history(tmp_path, how):
    ledger = _first_session(tmp_path)
    workspace = (tmp_path / "ws").resolve()
    args = _args(continue_last=True) if how == "continue" else _args(resume_session=ledger.stem)
    conversation = _continued(args, workspace)
    assert conversation.session == ledger.stem
    script = Script({"react": [Reply(content="About 2.1 million people.")]})
    config = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0)
    session = Session(config, workspace, transport=ScriptedTransport(script), session_id=conversation.session)
    session.restore_history(conversation.messages)
    app = PaicliApp(session, remember_theme=False, earlier=conversation.turns)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: "Paris." in transcript_text(app), "the earlier answer")
            assert "what is the capital of France?" in transcript_text(app)
            assert "1 earlier turn above" in transcript_text(app)
            await submit(pilot, "and how many people live there?")
            await until(pilot, lambda: "2.1 million" in transcript_text(app), "the new answer")
    finally:
        session.close()
    (request,) = script.requests
    said = [m.get("content") for m in request.messages]
    assert "Paris." in said and any("capital of France" in str(text) for text in said)
    goals = [line.payload["goal"] for line in read_ledger(ledger) if line.event == "run_requested"]
    assert goals == ["what is the capital of France?", "and how many people live there?"]


def test_continue_with_no_earlier_session_is_one_line(tmp_path):
    with pytest.raises(CommandError, match="no earlier session of"):
        _continued(_args(continue_last=True), tmp_path)


def test_resume_of_a_session_of_another_workspace_says_so(tmp_path):
    ledger = _first_session(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    with pytest.raises(CommandError, match="worked in"):
        _continued(_args(resume_session=ledger.stem), other.resolve())
