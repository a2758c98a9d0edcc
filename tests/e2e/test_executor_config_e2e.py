"""``[executor]`` in config.toml picks where tasks run for the app and for
`paicli run`; a cluster that cannot be reached is one line and exit 2 for both."""

from __future__ import annotations

import pytest

from tests.support.cli import run_paicli

pytest.importorskip("ray", reason="the [ray] extra is not installed")
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(60)]


@pytest.mark.parametrize("command", [["--demo"], ["run", "--demo", "--mode", "plan", "anything"]])
def test_an_unreachable_cluster_in_config_toml_is_one_line_and_exit_2(tmp_path, paicli_home, command):
    (paicli_home / "config.toml").write_text('[executor]\nkind = "ray"\nray_address = "ray://127.0.0.1:1"\n')
    proc = run_paicli(command, home=paicli_home, cwd=tmp_path, timeout=50)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and "cannot reach the Ray cluster at ray://127.0.0.1:1" in proc.stderr


def test_a_misspelt_executor_kind_names_the_setting(tmp_path, paicli_home):
    (paicli_home / "config.toml").write_text('[executor]\nkind = "rey"\n')
    proc = run_paicli(["run", "--demo", "--mode", "plan", "anything"], home=paicli_home, cwd=tmp_path)
    assert proc.returncode == 2 and "executor.kind" in proc.stderr, proc.stderr
