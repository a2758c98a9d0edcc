"""The first screen's settings read without validating them, and the record
of settings that passed validation: exactly those, and nothing else, start
without pydantic before the first frame."""

from __future__ import annotations

import json

import pytest

from paicli_tui.config import preview as preview_module
from paicli_tui.config.loading import load_settings
from paicli_tui.config.paths import ConfigError, config_file, data_dir
from paicli_tui.config.preview import CHECKED_FILE, read_preview, remember_checked
from paicli_tui.config.settings import Settings

FIELDS = list(Settings.model_fields)


def _write_config(text: str) -> None:
    config_file().parent.mkdir(parents=True, exist_ok=True)
    config_file().write_text(text, encoding="utf-8")


def _passed(overrides: dict | None = None) -> None:
    """What a start does once the settings validated."""
    load_settings(overrides)  # raises if they do not
    remember_checked(read_preview(overrides or {}), FIELDS)


def test_the_preview_shows_what_validation_would_give():
    _write_config('provider = "deepseek"\ntheme = "paicli-light"\napproval_mode = "plan"\n')
    seen = read_preview({"model": "deepseek-reasoner", "theme": None})
    settings = load_settings({"model": "deepseek-reasoner", "theme": None})
    assert (seen.theme, seen.approval_mode, seen.provider) == (settings.theme, settings.approval_mode, "deepseek")
    assert seen.resolved() == settings.resolved()
    config_file().unlink()
    defaults, plain = read_preview({}), Settings()
    assert (defaults.resolved(), defaults.theme, defaults.approval_mode) == (
        plain.resolved(), plain.theme, plain.approval_mode)


def test_the_environment_and_flags_win_over_the_file_as_in_the_settings(monkeypatch):
    _write_config('provider = "deepseek"\nmodel = "from-file"\n')
    monkeypatch.setenv("PAICLI_MODEL", "from-env")
    assert read_preview({}).resolved().model == load_settings({}).resolved().model == "from-env"
    assert read_preview({"model": "from-flag"}).resolved().model == "from-flag"


@pytest.mark.parametrize("text", [
    'workers = 3\ntheme = 5\n',                 # a value of the wrong kind
    'provider = "nonesuch"\n',                   # no such preset
    'approval_mode = "sometimes"\n',             # no such mode
    '[executor]\nkind = "ray"\n',                # a cluster is reached before the screen
    '[prices]\n"m" = { prompt = 1.0 }\n',        # the status bar's price is typed
])
def test_settings_it_cannot_show_as_they_are_are_validated_before_the_screen(text):
    _write_config(text)
    assert read_preview({}) is None


def test_an_unreadable_config_is_one_line_naming_the_file():
    _write_config('theme = "unclosed\n')
    with pytest.raises(ConfigError, match=r"config\.toml: not valid TOML"):
        read_preview({})


def test_settings_count_as_checked_only_once_they_passed():
    _write_config('workers = 3\nmodel = "a-distinctive-model"\n')
    assert read_preview({}).checked_before is False
    _passed()
    assert read_preview({}).checked_before is True
    text = (data_dir() / CHECKED_FILE).read_text(encoding="utf-8")
    assert "PAICLI_WORKERS" in json.loads(text)["env"]
    assert "a-distinctive-model" not in text  # values only go into the digest


@pytest.mark.parametrize("change", ["file", "environment", "flag", "version"])
def test_any_change_to_what_was_checked_sends_it_back_before_the_screen(change, monkeypatch):
    _write_config('workers = 3\n')
    _passed({"model": "m1"})
    assert read_preview({"model": "m1"}).checked_before is True
    overrides = {"model": "m1"}
    if change == "file":
        _write_config('workers = "many"\n')
    elif change == "environment":
        monkeypatch.setenv("PAICLI_WORKERS", "many")  # not one of the previewed settings, still checked
    elif change == "flag":
        overrides = {"model": "m2"}
    else:
        monkeypatch.setattr(preview_module, "__version__", "99.0")
    assert read_preview(overrides).checked_before is False


def test_a_damaged_record_only_means_validating_before_the_screen():
    _write_config('workers = 3\n')
    _passed()
    for damaged in ("not json", "[1, 2]", '{"digest": 5, "env": "PAICLI_X"}'):
        (data_dir() / CHECKED_FILE).write_text(damaged, encoding="utf-8")
        assert read_preview({}).checked_before is False


def test_a_record_that_cannot_be_written_is_skipped():
    _write_config('workers = 3\n')
    (data_dir() / CHECKED_FILE).mkdir(parents=True)  # a folder where the file goes
    remember_checked(read_preview({}), FIELDS)
    assert read_preview({}).checked_before is False


def test_no_key_reaches_the_record_or_its_digest(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-value")
    monkeypatch.setenv("PAICLI_API_KEY", "sk-other-secret")  # the custom preset's key variable
    _passed()
    record = json.loads((data_dir() / CHECKED_FILE).read_text(encoding="utf-8"))
    assert "PAICLI_API_KEY" not in record["env"] and "OPENAI_API_KEY" not in record["env"]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-a-new-key")
    monkeypatch.setenv("PAICLI_API_KEY", "sk-another-new-key")
    assert read_preview({}).checked_before is True  # a new key is not a new configuration
