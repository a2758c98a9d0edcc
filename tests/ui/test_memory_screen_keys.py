"""/memory keeps typing in the search box: Down on an empty list, then "d",
then more letters all reach the box; from a list of facts, a letter other
than "d" goes back to the box. The screen opens before the facts load."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import Input, OptionList

from paicli_tui.knowledge.memory.database import Database
from paicli_tui.knowledge.service import Knowledge
from paicli_tui.ui.app import PaicliApp
from paicli_tui.ui.knowledge.memory_screen import MemoryScreen
from tests.ui.conftest import submit
from tests.ui.fake_session import FakeSession
from tests.ui.test_run_screen_flow import until

pytestmark = pytest.mark.timeout(60)


def _app(tmp_path, *facts: str) -> PaicliApp:
    session = FakeSession()
    session.knowledge = Knowledge(tmp_path / "ws", db=Database(tmp_path / "k.sqlite3"))
    for fact in facts:
        session.knowledge.save_by_person(fact)
    return PaicliApp(session, theme="paicli-dark")


async def test_down_then_d_on_an_empty_list_keeps_typing_in_the_search_box(tmp_path):
    app = _app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "/memory")
        await until(pilot, lambda: isinstance(app.screen, MemoryScreen) and app.screen.is_mounted, "the memory screen")
        await pilot.pause(0.1)
        await pilot.press("down", "d", "x")
        search = app.screen.query_one("#memory-filter", Input)
        assert search.has_focus and search.value == "dx"


async def test_a_letter_typed_in_the_list_goes_back_to_the_search_box(tmp_path):
    app = _app(tmp_path, "The currency module uses Decimal", "Deploys go through staging")
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "/memory")
        await until(pilot, lambda: isinstance(app.screen, MemoryScreen) and len(app.screen.facts) == 2, "the facts")
        await pilot.press("down")
        assert app.screen.query_one("#memory-list", OptionList).has_focus
        await pilot.press("c", "u", "r")
        search = app.screen.query_one("#memory-filter", Input)
        assert search.has_focus and search.value == "cur"
        await until(pilot, lambda: [f.text for f in app.screen.facts] == ["The currency module uses Decimal"],
                    "the prefix match")


async def test_the_screen_shows_before_its_facts(tmp_path, monkeypatch):
    app = _app(tmp_path, "The currency module uses Decimal")
    memory = app.session.knowledge.memory
    read = memory.recent
    database_ready = threading.Event()

    def slow_recent(*args, **kwargs):  # a database that takes its time to open
        database_ready.wait(10)
        return read(*args, **kwargs)

    monkeypatch.setattr(memory, "recent", slow_recent)
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "/memory")
        await until(pilot, lambda: isinstance(app.screen, MemoryScreen) and app.screen.is_mounted, "the memory screen")
        screen = app.screen
        await pilot.pause(0.1)
        assert screen.facts == [] and "loading" in str(screen.query_one("#memory-list", OptionList).get_option_at_index(0).prompt)
        assert screen.query_one("#memory-filter", Input).has_focus
        database_ready.set()
        await until(pilot, lambda: len(screen.facts) == 1, "the facts")


async def test_one_letter_finds_the_facts_with_a_word_that_starts_with_it(tmp_path):
    app = _app(tmp_path, "The currency module uses Decimal", "Deploys go through staging")
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "/memory")
        await until(pilot, lambda: isinstance(app.screen, MemoryScreen) and len(app.screen.facts) == 2, "the facts")
        await pilot.press("c")
        await until(pilot, lambda: [f.text for f in app.screen.facts] == ["The currency module uses Decimal"],
                    "the one-letter prefix match")

