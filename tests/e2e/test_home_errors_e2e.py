"""A PAICLI_HOME that cannot be used is one line and exit 2 for every
command, never a traceback (issue 12, class 9)."""

from __future__ import annotations

import pytest

from tests.support.cli import paicli_env, run_paicli

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(60)]

COMMANDS = [["run", "--demo", "hi"], ["sessions"], ["replay", "x", "--text"], ["verify", "x"], ["report", "x"],
            ["--demo"]]


def _run(args, home, cwd):
    return run_paicli(args, home=home, cwd=cwd, env=paicli_env(home))


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a))
def test_a_home_that_is_a_file(tmp_path, args):
    home = tmp_path / "home"
    home.write_text("not a folder", encoding="utf-8")
    proc = _run(args, home, tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == f"paicli: PAICLI_HOME {home} is not a directory (it is a file)\n"


def test_a_home_under_a_file(tmp_path):
    parent = tmp_path / "file"
    parent.write_text("x", encoding="utf-8")
    proc = _run(["run", "--demo", "hi"], parent / "sub", tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == f"paicli: PAICLI_HOME {parent / 'sub'}: {parent} is not a directory (it is a file)"


@pytest.mark.parametrize("args", [["run", "--demo", "hi"], ["--demo"]], ids=lambda a: " ".join(a))
def test_a_home_that_cannot_be_written(tmp_path, args):
    # sysfs refuses new directories even to root, where chmod would not.
    proc = run_paicli(args, home=tmp_path, cwd=tmp_path, env=paicli_env(tmp_path, PAICLI_HOME="/sys/paicli-test"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith("paicli: cannot write the config directory /sys/paicli-test: ")  # EPERM as root
