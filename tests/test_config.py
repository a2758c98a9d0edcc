"""Settings: file → environment → flags, one-line errors (issue 2)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from paicli_tui.config.settings import PRESETS, ConfigError, config_file, data_dir

from paicli_tui.config.loading import load_settings, remember


def test_paicli_home_points_config_and_data_at_one_folder(paicli_home):
    assert config_file() == paicli_home / "config.toml"
    assert data_dir() == paicli_home


def test_defaults_come_from_the_preset():
    resolved = load_settings({"provider": "deepseek"}).resolved()
    assert resolved.base_url == PRESETS["deepseek"]["base_url"]
    assert resolved.api_key_env == "DEEPSEEK_API_KEY"


@pytest.mark.parametrize("name", ["openai", "deepseek", "glm", "ollama", "llamacpp", "openrouter", "vllm", "lmstudio", "custom"])
def test_every_preset_resolves(name):
    resolved = load_settings({"provider": name}).resolved()
    assert resolved.base_url.startswith("http") and resolved.model


def test_the_documented_endpoints_of_the_new_presets():
    resolved = {name: load_settings({"provider": name}).resolved() for name in ("openrouter", "vllm", "lmstudio")}
    assert (resolved["openrouter"].base_url, resolved["openrouter"].api_key_env) == (
        "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY")
    assert (resolved["vllm"].base_url, resolved["vllm"].api_key_env) == ("http://127.0.0.1:8000/v1", "")
    assert (resolved["lmstudio"].base_url, resolved["lmstudio"].api_key_env) == ("http://127.0.0.1:1234/v1", "")
    # Local servers need no key; OpenRouter does and says which variable.
    assert resolved["vllm"].missing_key() is None and resolved["lmstudio"].missing_key() is None
    assert "OPENROUTER_API_KEY" in (resolved["openrouter"].missing_key() or "")


def test_every_preset_is_documented_and_named_in_the_cli_help():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    table = (root / "docs" / "providers.md").read_text(encoding="utf-8")
    cli = (root / "paicli_tui" / "cli.py").read_text(encoding="utf-8")
    for name, preset in PRESETS.items():
        if name in ("custom", "demo"):
            continue
        assert f"`{name}`" in table and preset["base_url"] in table, name
        assert name in cli, name


def test_tool_calls_in_content_is_off_unless_set(monkeypatch):
    assert load_settings().tool_calls_in_content is False
    monkeypatch.setenv("PAICLI_TOOL_CALLS_IN_CONTENT", "true")
    assert load_settings().tool_calls_in_content is True


def test_precedence_file_then_environment_then_flags(paicli_home, monkeypatch):
    (paicli_home / "config.toml").write_text('model = "from-file"\nworkers = 3\n', encoding="utf-8")
    assert load_settings().model == "from-file"
    monkeypatch.setenv("PAICLI_MODEL", "from-env")
    settings = load_settings()
    assert settings.model == "from-env" and settings.workers == 3
    assert load_settings({"model": "from-flag", "workers": None}).model == "from-flag"


def test_api_key_is_read_from_the_named_variable(monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-test-123456789")
    assert load_settings({"api_key_env": "MY_KEY"}).resolved().api_key() == "sk-test-123456789"
    assert load_settings({"provider": "ollama"}).resolved().api_key() is None


@pytest.mark.parametrize(
    "content, key, words",
    [
        ("workers = -1\n", "workers", "greater than or equal"),
        ('provider = "nope"\n', "provider", "Input should be"),
        ("colour = 1\n", "colour", "unknown setting"),
        ("workers = [\n", None, "not valid TOML"),
    ],
)
def test_bad_config_is_one_line_naming_file_key_and_problem(paicli_home, content, key, words):
    (paicli_home / "config.toml").write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_settings()
    message = str(info.value)
    assert "\n" not in message and str(paicli_home / "config.toml") in message and words in message
    if key:
        assert key in message


def test_bad_environment_value_names_the_source(monkeypatch):
    monkeypatch.setenv("PAICLI_WORKERS", "many")
    with pytest.raises(ConfigError, match="environment: workers"):
        load_settings()


def test_remember_keeps_other_lines(paicli_home):
    path = paicli_home / "config.toml"
    path.write_text('# mine\nmodel = "x"\ntheme = "old"\n', encoding="utf-8")
    remember("theme", "paicli-light")
    text = path.read_text(encoding="utf-8")
    assert '# mine' in text and 'model = "x"' in text and 'theme = "paicli-light"' in text
    assert load_settings().theme == "paicli-light"


def test_remember_puts_a_top_level_key_before_the_first_table(paicli_home):
    path = paicli_home / "config.toml"
    path.write_text('model = "x"\n\n[permissions]\nallow = ["command: npm test"]\n', encoding="utf-8")
    remember("theme", "paicli-light")
    settings = load_settings()
    assert settings.theme == "paicli-light" and settings.permissions.allow == ["command: npm test"]


def test_cli_exits_2_on_bad_config(paicli_home, tmp_path):
    (paicli_home / "config.toml").write_text("parallelism = 0\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "paicli_tui", "run", "--mode", "plan", "goal"],
        capture_output=True, text=True, timeout=30, cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert "parallelism" in proc.stderr and proc.stderr.count("\n") == 1


def test_version_and_help_do_not_import_textual(tmp_path):
    code = (
        "import sys\nfrom paicli_tui.cli import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print('textual' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert proc.stdout.strip().endswith("False"), proc.stdout


def test_headless_run_does_not_import_textual(tmp_path, paicli_home):
    code = (
        "import sys\nfrom paicli_tui.cli import main\n"
        "code = main(['run', '--demo', '--yes', 'what is here?'])\n"
        "print('textual' in sys.modules, code)"
    )
    (tmp_path / "README.md").write_text("# x\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.stdout.strip().splitlines()[-1] == "False 0", proc.stdout + proc.stderr


def test_a_missing_key_for_a_remote_server_is_named_before_any_request(monkeypatch):
    problem = load_settings({"provider": "deepseek"}).resolved().missing_key()
    assert problem.startswith("DEEPSEEK_API_KEY is not set") and "api.deepseek.com" in problem
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-test-0000000000")
    assert load_settings({"provider": "deepseek"}).resolved().missing_key() is None
    # local servers usually need no key
    assert load_settings({"provider": "custom", "base_url": "http://127.0.0.1:8080/v1"}).resolved().missing_key() is None
    assert load_settings({"provider": "ollama"}).resolved().missing_key() is None


def test_headless_run_without_the_key_fails_fast_with_exit_2(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "paicli_tui", "run", "--provider", "openai", "hi"],
        capture_output=True, text=True, timeout=30, cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert "OPENAI_API_KEY is not set" in proc.stderr and proc.stderr.count("\n") == 1


def test_the_turn_limit_defaults_to_50_so_an_unlimited_loop_still_stops():
    assert load_settings().max_turns == 50
    assert load_settings({"max_turns": 7}).max_turns == 7


@pytest.mark.parametrize("url", ["not a url", "http//x", "localhost:8080", "http:///v1", "http://x:port/v1"])
def test_a_garbage_base_url_is_named_before_the_key(url):
    problem = load_settings({"base_url": url}).resolved().problem()
    assert problem is not None and problem.startswith("base URL ") and "is not a URL" in problem
    assert "OPENAI_API_KEY" not in problem


@pytest.mark.parametrize("url", ["ftp://x/v1", "ws://x/v1"])
def test_a_base_url_that_is_not_http_is_refused(url):
    problem = load_settings({"base_url": url}).resolved().problem()
    assert problem is not None and "use http:// or https://" in problem


def test_a_password_in_a_bad_base_url_is_not_repeated():
    problem = load_settings({"base_url": "ftp://me:hunter2@x/v1"}).resolved().problem()
    assert problem is not None and "hunter2" not in problem


def test_good_base_urls_have_no_problem_beyond_the_key():
    assert load_settings({"base_url": "http://127.0.0.1:8080/v1"}).resolved().problem() is None
    assert load_settings({"base_url": "https://[::1]:9/v1"}).resolved().problem() is None
    assert "OPENAI_API_KEY is not set" in load_settings({"base_url": "https://api.example.com/v1"}).resolved().problem()
