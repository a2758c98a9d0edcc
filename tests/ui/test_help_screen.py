"""The help (issue 13 item 7): generated from the bindings of every screen,
so it cannot drift. The classes are found here independently, by reading
the source of paicli_tui/ui for ``BINDINGS =``, and every binding of every
one must be in the help, on one row with its keys."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from textual.binding import Binding

import paicli_tui.ui as ui_package
from paicli_tui.ui.conversation.slash_commands import COMMANDS
from paicli_tui.ui.help.help_screen import HelpScreen
from paicli_tui.ui.help.key_table import binding_keys, key_groups
from tests.ui.conftest import settle, submit

SIZE = (120, 36)
UI_ROOT = Path(ui_package.__file__).parent


def classes_declaring_bindings() -> list[type]:
    found = []
    for path in sorted(UI_ROOT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = "paicli_tui.ui." + ".".join(path.relative_to(UI_ROOT).with_suffix("").parts)
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and any(
                isinstance(item, ast.Assign) and any(getattr(t, "id", "") == "BINDINGS" for t in item.targets)
                for item in node.body
            ):
                found.append(getattr(importlib.import_module(module), node.name))
    return found


def test_every_binding_of_every_screen_is_in_the_help():
    classes = classes_declaring_bindings()
    names = {cls.__name__ for cls in classes}
    assert {"PaicliApp", "MainScreen", "PlanReviewScreen", "RunScreen", "ApprovalScreen", "PermissionsScreen",
            "HelpScreen", "Transcript"} <= names
    rows = {(row.keys, row.description) for group in key_groups().values() for row in group}
    for cls in classes:
        for item in cls.__dict__["BINDINGS"]:
            for binding in Binding.make_bindings([item]):
                assert (binding_keys(binding), binding.description or binding.action) in rows, (cls, binding)


def test_keys_are_grouped_by_screen():
    groups = key_groups()
    owners = {group: {row.owner for row in rows} for group, rows in groups.items()}
    assert list(groups)[:3] == ["Main screen", "Plan review", "Run"]
    assert {"PaicliApp", "MainScreen", "Transcript"} <= owners["Main screen"]
    assert "PlanReviewScreen" in owners["Plan review"] and "RunScreen" in owners["Run"]
    assert "ApprovalScreen" in owners["Approval"] and "PermissionsScreen" in owners["Permissions"]
    assert "Confirm" in owners["Dialogs"]


async def test_f1_and_a_question_mark_on_an_empty_input_open_it_and_esc_or_q_close_it(app):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.main_screen
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert app.main_screen.prompt.value == ""
        await pilot.press("q")
        await pilot.pause()
        assert app.screen is app.main_screen


async def test_a_question_mark_in_text_is_just_text(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"why?")
        await pilot.pause()
        assert app.screen is app.main_screen
        assert app.main_screen.prompt.value == "why?"


async def test_it_lists_commands_and_the_focus_order_and_scrolls(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, "/help")
        await settle(pilot)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        text = help_screen.help_text()
        for name in COMMANDS:
            assert name in text
        assert "Focus order" in text and "input → transcript → input" in text
        body = help_screen.query_one("#help-body")
        assert body.max_scroll_y > 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y > 0
