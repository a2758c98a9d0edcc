"""`paicli` (no command) refuses bad configuration before the screen opens."""

from __future__ import annotations

from paicli_tui.cli import main
from paicli_tui.config.settings import config_file


def test_bad_config_is_one_line_and_exit_2(capsys):
    config_file().parent.mkdir(parents=True, exist_ok=True)
    config_file().write_text('theme = "paicli-dark"\nworkers = "many"\n', encoding="utf-8")
    assert main(["--demo"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "config.toml" in err and "workers" in err


def test_missing_workspace_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["--demo", "--workspace", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nowhere" in err and "not a directory" in err


def test_a_bad_plan_file_is_one_line_and_exit_2_before_the_ui(tmp_path, capsys):
    bad = tmp_path / "plan.json"
    bad.write_text('{"tasks": [{"id": "a", "description": "x", "dependencies": ["nope"]}]}', encoding="utf-8")
    assert main(["--demo", "--workspace", str(tmp_path), "--plan-file", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "plan.json" in err and "nope" in err
    assert main(["--demo", "--workspace", str(tmp_path), "--plan-file", str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().err
