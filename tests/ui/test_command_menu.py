"""Pilot tests for the completion menu (slash commands and their
arguments), the @ file picker with attachments, and paicli's commands in
the command palette."""

from __future__ import annotations

import asyncio

from textual.command import CommandPalette

from paicli_tui import events as ev
from paicli_tui.ui.conversation.completion_menu import CompletionMenu
from paicli_tui.ui.conversation.command_provider import SlashCommandProvider
from paicli_tui.ui.conversation.slash_commands import COMMANDS
from paicli_tui.ui.help.help_screen import HelpScreen
from tests.ui.conftest import RecordingApp, settle, transcript_text
from tests.ui.fake_session import FakeSession

SIZE = (120, 36)


def menu_labels(app) -> list[str]:
    menu = app.main_screen.query_one(CompletionMenu)
    return [item.label for item in menu.items] if menu.is_open else []


async def test_a_slash_opens_the_menu_of_every_command_filtered_as_you_type(app):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("/")
        await pilot.pause()
        assert menu_labels(app) == list(COMMANDS)
        menu = app.main_screen.query_one(CompletionMenu)
        assert all(item.description for item in menu.items)
        await pilot.press("p")
        await pilot.pause()
        assert menu_labels(app) == ["/plan", "/permissions"]
        await pilot.press("e")
        await pilot.pause()
        assert menu_labels(app) == ["/permissions"]
        await pilot.press("backspace", "backspace", "backspace")
        await pilot.pause()
        assert menu_labels(app) == []  # nothing typed that starts a command


async def test_tab_accepts_with_a_trailing_space_and_the_menu_goes_on_with_the_choices(app):
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.main_screen.prompt
        await pilot.press("/", "t", "h", "tab")
        assert prompt.text == "/theme "
        await pilot.pause()
        labels = menu_labels(app)
        assert labels == app.theme_names() and labels[:2] == ["paicli-dark", "paicli-light"]
        assert "textual-dark" in labels  # Textual's own themes are offered too
        assert str(app.main_screen.query_one(CompletionMenu).border_title) == "/theme [NAME]"
        await pilot.press("down", "enter")
        assert prompt.text == "/theme paicli-light "
        await pilot.press("p")  # the next key starts a new word, never glued on
        assert prompt.text == "/theme paicli-light p"


async def test_enter_runs_a_complete_command_and_completes_one_that_needs_an_argument(app, session):
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.main_screen.prompt
        await pilot.press(*"/plan", "enter")
        assert prompt.text == "/plan " and session.submitted == []
        prompt.clear()
        await pilot.press(*"/mode", "space", "a", "s", "enter")  # "/mode as": Enter takes "ask"
        assert prompt.text == "/mode ask "
        await pilot.press("enter")
        await settle(pilot)
        assert session.approval_mode == "ask"
        await pilot.press(*"/help", "enter")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)


async def test_up_and_down_move_the_highlight_while_the_menu_is_open(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit_line(pilot, "an earlier line")
        await pilot.press("/")
        menu = app.main_screen.query_one(CompletionMenu)
        await pilot.press("down", "down")
        assert menu.index == 2
        await pilot.press("up")
        assert menu.index == 1 and app.main_screen.prompt.text == "/"  # no history walk
        await pilot.press("tab")
        assert app.main_screen.prompt.text == "/team "


async def test_escape_closes_the_menu_then_means_cancel_again(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit_line(pilot, "go")  # a turn is running
        await pilot.press("/")
        await pilot.pause()
        assert menu_labels(app)
        await pilot.press("escape")
        await pilot.pause()
        assert menu_labels(app) == [] and session.cancelled == 0
        await pilot.press("escape")
        assert session.cancelled == 1
        await pilot.press("h")  # typing again opens it again
        await pilot.pause()
        assert menu_labels(app) == ["/hooks", "/help"]


async def test_a_line_from_history_opens_no_menu(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit_line(pilot, "/mode plan")
        await submit_line(pilot, "/mode auto")
        await pilot.press("up", "up")
        await pilot.pause()
        assert app.main_screen.prompt.text == "/mode plan" and menu_labels(app) == []


FILES = ["README.md", "src/app.py", "src/app_test.py", "docs/guide.md"]


def picker_app(tmp_path) -> RecordingApp:
    for name in FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"# {name}\n", encoding="utf-8")
    return RecordingApp(FakeSession(workspace=tmp_path), theme="paicli-dark")


async def wait_for_menu(pilot, app) -> list[str]:
    for _ in range(200):  # the first listing runs rg on a thread
        await pilot.pause()
        if menu_labels(app):
            return menu_labels(app)
        await asyncio.sleep(0.02)
    raise AssertionError("the file picker never opened")


async def test_at_opens_a_fuzzy_picker_over_the_workspace_files(tmp_path):
    (tmp_path / ".gitignore").write_text("ignored.txt\n")
    (tmp_path / "ignored.txt").write_text("no\n")
    app = picker_app(tmp_path)
    (tmp_path / ".git").mkdir()  # .gitignore applies in a git repository
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"see", "space", "@")
        shown = await wait_for_menu(pilot, app)
        assert sorted(shown) == sorted([*FILES, ".gitignore"])
        await pilot.press(*"apy")
        await pilot.pause()
        assert menu_labels(app)[:2] == ["src/app.py", "src/app_test.py"]
        await pilot.press("enter")
        assert app.main_screen.prompt.text == "see @src/app.py "


async def test_an_accepted_mention_attaches_the_file_and_the_chip_shows(tmp_path):
    app = picker_app(tmp_path)
    session = app.session
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("@", "g", "u", "i")
        await wait_for_menu(pilot, app)
        await pilot.press("tab", *"and", "space", "@", "R", "E", "A", "D", "M", "E", ".", "m", "d", "space")
        await pilot.press(*"and", "space", *"@nobody", "enter")
        await settle(pilot)
        assert session.submitted == ["@docs/guide.md and @README.md and @nobody"]
        assert session.attachments == [("docs/guide.md", "README.md")]
        record = {"path": "docs/guide.md", "lines": 1, "bytes": 16, "truncated": False, "note": ""}
        session.bus.publish(ev.RunRequested("session", "react", "x", attachments=(record,)))
        await settle(pilot)
        assert "⎘ docs/guide.md (1 line)" in transcript_text(app)


async def test_attachments_with_a_plan_are_refused_with_a_warning(tmp_path):
    app = picker_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.main_screen.prompt.load_text("/plan tidy @README.md")
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.submitted == ["/plan tidy @README.md"] and app.session.attachments == [()]
        assert "a /plan or /team run does not read them" in transcript_text(app)


async def test_the_palette_runs_paicli_commands_like_typing_them(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"mode plan")
        await wait_for_hit(pilot, app, "/mode plan")
        await pilot.press("enter")
        await settle(pilot)
        assert session.approval_mode == "plan"
        await pilot.press("ctrl+p")
        await pilot.press(*"/team")
        await wait_for_hit(pilot, app, "/team GOAL")
        await pilot.press("enter")
        await settle(pilot)
        assert app.main_screen.prompt.text == "/team " and session.submitted == []


async def test_the_palette_offers_every_command_with_its_description(app):
    async with app.run_test(size=SIZE) as pilot:
        provider = SlashCommandProvider(app.main_screen)
        offered = {text: description for text, description, _runs in provider._entries()}
        for name, (hint, description) in COMMANDS.items():
            rows = [text for text in offered if text == name or text.startswith(name + " ")]
            assert rows, name
            assert all(offered[text].startswith(description) for text in rows), name
        assert f"/theme {app.theme_names()[-1]}" in offered  # every theme, Textual's too
        await pilot.pause()


async def wait_for_hit(pilot, app, text: str) -> None:
    for _ in range(200):
        await pilot.pause()
        hits = app.screen.query_one("CommandList")
        if hits.option_count and text in str(hits.get_option_at_index(0).prompt):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the palette never offered {text!r} first")


async def submit_line(pilot, text: str) -> None:
    pilot.app.main_screen.prompt.load_text(text)
    await pilot.press("enter")
    await settle(pilot)
