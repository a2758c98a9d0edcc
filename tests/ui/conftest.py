"""Fixtures for the UI tests: the real app over a fake session, an app that
records its notifications, and a helper that paints everything queued."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from paicli_tui.ui.app import PaicliApp
from tests.ui.fake_session import FakeSession


class RecordingApp(PaicliApp):
    """PaicliApp that also keeps the text of every notification."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.notices: list[str] = []

    def notify(self, message: str, **kwargs) -> None:
        self.notices.append(message)
        super().notify(message, **kwargs)


@pytest.fixture
def session() -> FakeSession:
    return FakeSession()


@pytest.fixture
def app(session) -> RecordingApp:
    return RecordingApp(session, theme="paicli-dark")


async def settle(pilot: Pilot) -> None:
    """Paint everything queued and wait until it is on screen."""
    app: PaicliApp = pilot.app  # type: ignore[assignment]
    await pilot.pause()
    await app.drain_events()
    await pilot.pause()


async def submit(pilot: Pilot, text: str) -> None:
    """Put a line in the input and press Enter (typing each key is slow;
    test_enter_submits_the_text_to_the_session types for real). Text put
    in this way opens no completion menu, so Enter sends it."""
    pilot.app.main_screen.prompt.load_text(text)
    await pilot.press("enter")


def text_of(app: PaicliApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def transcript_text(app: PaicliApp) -> str:
    """Every line of every note and user entry, plus streamed Markdown sources."""
    from textual.widgets import Collapsible

    from paicli_tui.ui.common.markdown_text import MarkdownText

    parts = []
    for entry in app.main_screen.transcript.children:
        if isinstance(entry, Collapsible):
            parts.append(str(entry.title))
        for markdown in entry.query(MarkdownText) if not isinstance(entry, MarkdownText) else [entry]:
            parts.append(markdown.source)
        if isinstance(entry, Static):
            parts.append(str(entry.render()))
    return "\n".join(parts)
