"""Themes (P-7.5): files, validation, switching, remembering."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandList

from paicli_tui.config.settings import config_file

from paicli_tui.config.loading import load_settings
from paicli_tui.config.resources import user_dir
from paicli_tui.ui.themes import load_themes, read_theme_file
from tests.ui.conftest import RecordingApp, settle, submit, transcript_text
from tests.ui.fake_session import FakeSession

SIZE = (120, 36)

GOOD = """name = "ocean"
dark = true
primary = "#3388ff"
background = "#001122"
[variables]
mode-ask = "#ffaa00"
"""


def _user_theme(name: str, text: str) -> Path:
    folder = user_dir("themes")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_packaged_themes_include_a_dark_and_a_light_one():
    themes, problems = load_themes()
    by_name = {theme.name: theme for theme in themes}
    assert problems == []
    assert by_name["paicli-dark"].dark is True
    assert by_name["paicli-light"].dark is False
    assert "diff-added" in by_name["paicli-light"].variables


def test_user_themes_load_beside_the_packaged_ones():
    _user_theme("ocean.toml", GOOD)
    themes, problems = load_themes()
    assert problems == []
    ocean = next(theme for theme in themes if theme.name == "ocean")
    assert ocean.primary == "#3388ff" and ocean.variables == {"mode-ask": "#ffaa00"}


def test_bad_theme_files_are_reported_by_file_and_key(tmp_path):
    cases = {
        "colour.toml": ('name = "x"\nprimary = "not-a-colour"\n', "primary"),
        "missing.toml": ('name = "y"\n', "primary"),
        "extra.toml": ('name = "z"\nprimary = "#fff"\nsparkle = true\n', "sparkle: unknown key"),
        "broken.toml": ('name = "w\n', "not valid TOML"),
        "variable.toml": ('name = "v"\nprimary = "#fff"\n[variables]\ndiff-added = "greenish"\n', "variables"),
        "name.toml": ('name = "-dash"\nprimary = "#fff"\n', "name: required"),
        "dark.toml": ('name = "d"\nprimary = "#fff"\ndark = "yes"\n', "dark: true or false"),
        "number.toml": ('name = "n"\nprimary = 3\n', "primary: a colour is a string"),
        "table.toml": ('name = "t"\nprimary = "#fff"\nvariables = "x"\n', "variables: a table of strings"),
    }
    for name, (text, _) in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    themes, problems = load_themes([tmp_path])
    assert themes == []
    reported = {p.path.name: str(p) for p in problems}
    for name, (_, expected) in cases.items():
        assert name in reported[name] and expected in reported[name], reported[name]


def test_read_theme_file_builds_a_textual_theme(tmp_path):
    path = tmp_path / "ocean.toml"
    path.write_text(GOOD, encoding="utf-8")
    assert read_theme_file(path).background == "#001122"


async def test_a_bad_user_theme_is_skipped_with_a_notification(session):
    bad = _user_theme("bad.toml", 'name = "bad"\nprimary = "nope"\n')
    app = RecordingApp(session, theme="paicli-dark")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert any(str(bad) in notice and "primary" in notice for notice in app.notices)
        assert app.theme == "paicli-dark"
        assert "bad" not in app.theme_names()


async def test_paicli_and_user_themes_come_first_then_textuals_own():
    _user_theme("ocean.toml", GOOD)
    app = RecordingApp(FakeSession(), theme="paicli-dark")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        names = app.theme_names()
        assert names[:3] == ["paicli-dark", "paicli-light", "ocean"]
        assert {"textual-dark", "textual-light", "dracula", "nord"} <= set(names[3:])
        assert names[3:] == sorted(names[3:])


async def test_a_textual_theme_can_be_chosen_and_is_remembered(app):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/theme dracula")
        await settle(pilot)
        assert app.theme == "dracula"
        assert "theme: dracula (remembered)" in transcript_text(app)
    assert load_settings().theme == "dracula"


async def test_theme_command_switches_and_remembers(app):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/theme paicli-light")
        await settle(pilot)
        assert app.theme == "paicli-light"
        assert app.current_theme.dark is False
    assert load_settings().theme == "paicli-light"
    assert 'theme = "paicli-light"' in config_file().read_text(encoding="utf-8")


async def test_unknown_theme_is_an_error_line_and_nothing_changes(app):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/theme neon")
        await submit(pilot, "/theme")
        await settle(pilot)
        text = transcript_text(app)
        assert "unknown theme 'neon': /theme lists them (paicli-dark, paicli-light, " in text
        assert "themes: paicli-dark, paicli-light · Textual's: " in text and "textual-dark" in text
        assert app.theme == "paicli-dark"
    assert not config_file().exists()


async def test_the_command_palette_switches_themes(app):
    async with app.run_test(size=SIZE) as pilot:
        app.action_change_theme()
        await pilot.pause()
        await pilot.press(*"paicli-light")
        hits = app.screen.query_one(CommandList)
        # The palette searches in a worker and highlights its best hit.
        while hits.highlighted is None or "paicli-light" not in str(hits.get_option_at_index(hits.highlighted).prompt):
            await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert app.theme == "paicli-light"
    assert load_settings().theme == "paicli-light"


async def test_the_remembered_theme_is_used_and_a_missing_one_falls_back():
    session = FakeSession()
    session.settings = session.settings.model_copy(update={"theme": "paicli-light"})
    app = RecordingApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.theme == "paicli-light"
    app = RecordingApp(FakeSession(), theme="gone")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.theme == "paicli-dark"
        assert "theme 'gone' not found; using paicli-dark" in app.notices
