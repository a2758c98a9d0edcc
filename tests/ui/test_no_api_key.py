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
from tests.support.timing import scaled
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
            notes = [str(line.render()) for line in screen.transcript.query(NoteLine)]
            lines = notes[before:]
            assert len(lines) == 1
            assert lines[0] == "Not sent: DEEPSEEK_API_KEY is not set (the fix is above)"
            # The fix (the variable to export, or --demo) is written out once, not again with the refusal.
            assert sum("export DEEPSEEK_API_KEY" in note and "--demo" in note for note in notes) == 1
            assert not session.busy and not screen.transcript.query(UserEntry)
            assert screen.prompt.text == "hello"
            assert not [e for e in seen if type(e).__name__.startswith("Model")]
    finally:
        session.close()


async def test_after_clear_the_refusal_writes_the_fix_out_again(tmp_path, monkeypatch):
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    session = Session(Settings(provider="deepseek"), tmp_path)
    app = PaicliApp(session, remember_theme=False)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.main_screen
            await until(pilot, lambda: "DEEPSEEK_API_KEY is not set" in str(screen.transcript.query(NoteLine).last().render()),
                        "the start-up warning")
            screen.prompt.load_text("/clear")
            await pilot.press("enter")
            await until(pilot, lambda: not session.busy and not any(
                "export DEEPSEEK_API_KEY" in str(line.render()) for line in screen.transcript.query(NoteLine)),
                "the cleared transcript")
            for _ in range(2):
                screen.prompt.load_text("hello")
                await pilot.press("enter")
                await pilot.pause(0.2)
            notes = [str(line.render()) for line in screen.transcript.query(NoteLine)]
            refusals = [note for note in notes if note.startswith("Not sent")]
            assert len(refusals) == 2 and "export DEEPSEEK_API_KEY" in refusals[0] and "--demo" in refusals[0]
            assert refusals[1] == "Not sent: DEEPSEEK_API_KEY is not set (the fix is above)"
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
        assert session.submit(ClearConversation()).result(timeout=scaled(30)) is not None
        monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-test")
        assert session.provider_problem() is None
    finally:
        session.close()
