"""The status bar never shows a token figure nobody measured: ``≈`` when
paicli counted the tokens itself (the server sent no usage), "unknown (N
calls without usage)" when nobody counted them."""

from __future__ import annotations

from paicli_tui import events as ev
from tests.ui.conftest import settle, text_of

SIZE = (120, 36)


def response(call_id: str, prompt: int, completion: int, *, reported: bool, estimated: bool) -> ev.ModelResponse:
    return ev.ModelResponse("react", call_id, "ok", "", (), "stop", prompt, completion, 0, 0.1,
                            usage_reported=reported, usage_estimated=estimated)


async def test_counted_tokens_are_marked_and_uncounted_calls_are_named(app, session):
    async with app.run_test(size=SIZE) as pilot:
        session.bus.publish(response("c1", 0, 0, reported=False, estimated=False))
        await settle(pilot)
        assert text_of(app, "#status-tokens") == "tokens unknown (1 call without usage)"
        session.bus.publish(response("c2", 1200, 34, reported=False, estimated=True))
        await settle(pilot)
        assert text_of(app, "#status-tokens") == "in ≈1.2k · out ≈34 · +1 call without usage"


async def test_reported_usage_stays_unmarked(app, session):
    async with app.run_test(size=SIZE) as pilot:
        session.bus.publish(response("c1", 1200, 34, reported=True, estimated=False))
        await settle(pilot)
        assert text_of(app, "#status-tokens") == "in 1.2k · out 34"
