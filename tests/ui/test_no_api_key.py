"""With no API key for a remote provider, a sent prompt is refused at once
with the fix (the variable to export, or --demo): nothing is sent, nothing is
retried, the text stays in the editor. Real Session and app."""

from __future__ import annotations

import pytest

from paicli_tui import events as ev
from paicli_tui.config.settings import Settings
from paicli_tui.session.live import Session
from paicli_tui.session.port import ClearConversation, ProviderUnavailable
from paicli_tui.ui.app import PaicliApp
from paicli_tui.ui.conversation.transcript_entries import NoteLine, UserEntry
from tests.ui.test_run_screen_flow import until

pytestmark = pytest.mark.timeout(60)


async def test_a_prompt_without_an_api_key_is_refused_at_once_with_the_fix(tmp_path, monkeypatch):
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    session = Session(Settings(provider="deepseek"), tmp_path)
    seen: list[ev.Event] = []
    session.bus.subscribe(seen.append)
    app = PaicliApp(session, remember_theme=False)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.main_screen
            await until(pilot, lambda: "DEEPSEEK_API_KEY is not set" in str(screen.transcript.query(NoteLine).last().render()),
                        "the start-up warning")
            before = len(screen.transcript.query(NoteLine))
            screen.prompt.load_text("hello")
            await pilot.press("enter")
            await until(pilot, lambda: len(screen.transcript.query(NoteLine)) > before, "the refusal")
            await pilot.pause(0.2)
            lines = [str(line.render()) for line in screen.transcript.query(NoteLine)][before:]
            assert len(lines) == 1
            assert "export DEEPSEEK_API_KEY" in lines[0] and "--demo" in lines[0] and lines[0].startswith("Not sent")
            assert not session.busy and not screen.transcript.query(UserEntry)
            assert screen.prompt.text == "hello"
            assert not [e for e in seen if type(e).__name__.startswith("Model")]
    finally:
        session.close()


def test_the_session_refuses_runs_but_not_clear(tmp_path, monkeypatch):
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    session = Session(Settings(provider="deepseek"), tmp_path)
    try:
        for start in (lambda: session.start_react("hello"), lambda: session.start_plan("do it"),
                      lambda: session.start_team("do it")):
            with pytest.raises(ProviderUnavailable, match="export DEEPSEEK_API_KEY"):
                start()
        assert session.submit(ClearConversation()).result(timeout=30) is not None
        monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-test")
        assert session.provider_problem() is None
    finally:
        session.close()
