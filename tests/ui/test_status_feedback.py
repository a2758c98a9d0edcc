"""Status and feedback (issue 13 item 5): labelled figures, an estimated
cost out of the box, a reset on /clear, and one muted line per command and
mode change."""

from __future__ import annotations

from paicli_tui import events as ev
from paicli_tui.ui.conversation.status_bar import format_usage
from paicli_tui.llm.types import Usage
from tests.ui.conftest import RecordingApp, settle, submit, text_of, transcript_text
from tests.ui.fake_session import FakeSession, Outcome

SIZE = (120, 36)


def test_the_figures_are_labelled_and_the_cost_is_an_estimate():
    usage = Usage(prompt_tokens=3_553, completion_tokens=171, cached_tokens=2_218)
    price = {"prompt": 0.15, "completion": 0.60, "cached": 0.075}
    assert format_usage(usage) == "in 3.6k · out 171 · cached 2.2k"
    assert format_usage(usage, price) == "in 3.6k · out 171 · cached 2.2k · ≈$0.0005"
    big = Usage(prompt_tokens=2_400_000, completion_tokens=45_000)
    assert format_usage(big, price) == "in 2.4M · out 45k · ≈$0.39"


async def test_a_presets_model_shows_an_estimated_cost_without_configuration():
    session = FakeSession()
    session.settings = session.settings.model_copy(update={"provider": "openai"})
    session.model = "gpt-4o-mini"
    app = RecordingApp(session, theme="paicli-dark")
    async with app.run_test(size=SIZE) as pilot:
        session.bus.publish(ev.ModelResponse("react", "c1", "ok", "", (), "stop", 100_000, 10_000, 0, 0.1))
        await settle(pilot)
        assert text_of(app, "#status-tokens") == "in 100k · out 10k · ≈$0.02"


async def test_the_demo_shows_no_cost(app, session):
    session.model = "demo"
    async with app.run_test(size=SIZE) as pilot:
        session.bus.publish(ev.ModelResponse("react", "c1", "ok", "", (), "stop", 100, 10, 0, 0.1))
        await settle(pilot)
        assert "$" not in text_of(app, "#status-tokens")


async def test_clear_resets_the_conversations_figures(app, session):
    async with app.run_test(size=SIZE) as pilot:
        session.bus.publish(ev.ModelResponse("react", "c1", "ok", "", (), "stop", 1200, 34, 0, 0.1))
        await settle(pilot)
        assert text_of(app, "#status-tokens") == "in 1.2k · out 34"
        await submit(pilot, "/clear")
        session.finish(Outcome("command", True, "final", "conversation cleared"))
        await settle(pilot)
        assert text_of(app, "#status-tokens") == "in 0 · out 0"
        session.bus.publish(ev.ModelResponse("react", "c2", "ok", "", (), "stop", 50, 5, 0, 0.1))
        await settle(pilot)
        assert text_of(app, "#status-tokens") == "in 50 · out 5"


async def test_mode_changes_and_commands_are_echoed_as_one_muted_line(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/mode ask")
        await settle(pilot)
        lines = app.main_screen.transcript.children
        assert str(lines[-1].render()) == "mode: ask — writes, edits and commands ask first"
        assert "-muted" in lines[-1].classes
        await pilot.press("shift+tab")
        await settle(pilot)
        assert transcript_text(app).splitlines()[-1] == "mode: auto — tools run; a command is risk-checked first"
        await submit(pilot, "/theme paicli-light")
        await settle(pilot)
        assert transcript_text(app).splitlines()[-1] == "theme: paicli-light (remembered)"
        await submit(pilot, "/mode auto")  # no change, still answered
        await settle(pilot)
        assert transcript_text(app).splitlines()[-1] == "mode: auto — tools run; a command is risk-checked first (already)"
