"""A reader that quits early (`paicli … | head -1`): every command stops
quietly, with no traceback and no blame on the ledger it was reading."""

from __future__ import annotations

import subprocess
import sys

import pytest

from paicli_tui.llm.offline.scripted import Script
from tests.support.cli import paicli_env, run_paicli
from tests.support.recorder import StepResponder, team_plan
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def _closed_reader(home, workspace, *args) -> subprocess.CompletedProcess:
    """Runs paicli with a stdout pipe whose read end is closed before the
    first byte arrives: every write it makes meets a broken pipe."""
    proc = subprocess.Popen([sys.executable, "-m", "paicli_tui", *args], cwd=workspace, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=paicli_env(home))
    proc.stdout.close()
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    return subprocess.CompletedProcess(proc.args, proc.returncode, "", err.decode("utf-8", "replace"))


@pytest.fixture
def recorded(workspace, paicli_home):
    script = Script({"planner": [team_plan(("A", []), ("B needs A", ["s1"]))]}, default=StepResponder("step_1"))
    with LoopbackServer(script) as server:
        live = run_paicli(["run", "--yes", "--base-url", server.base_url, "--model", "m", "--workspace", str(workspace),
                           "--mode", "team", "A then B"], home=paicli_home, cwd=workspace, timeout=45)
    assert live.returncode == 0, live.stderr
    (path,) = sorted((paicli_home / "history" / "raw").glob("*.jsonl"))
    return path.stem


@pytest.mark.parametrize("command", [
    ["sessions"], ["sessions", "--json"], ["report", "{s}"], ["verify", "{s}"], ["replay", "--text", "{s}"],
])
def test_record_commands_stop_quietly_when_the_reader_quits(command, recorded, workspace, paicli_home):
    args = [part.replace("{s}", recorded) for part in command]
    result = _closed_reader(paicli_home, workspace, *args)
    assert "Traceback" not in result.stderr, result.stderr
    assert "cannot read" not in result.stderr, result.stderr
    assert "Broken pipe" not in result.stderr, result.stderr
    assert result.returncode == 141, (result.returncode, result.stderr)


def test_a_run_whose_reader_quits_still_records_the_whole_run(workspace, paicli_home):
    script = Script({"planner": [team_plan(("A", []), ("B needs A", ["s1"]))]}, default=StepResponder("step_1"))
    with LoopbackServer(script) as server:
        result = _closed_reader(paicli_home, workspace, "run", "--yes", "--base-url", server.base_url, "--model", "m",
                                "--workspace", str(workspace), "--mode", "team", "A then B")
    assert "Traceback" not in result.stderr, result.stderr
    (path,) = sorted((paicli_home / "history" / "raw").glob("*.jsonl"))
    verify = run_paicli(["verify", path.stem], home=paicli_home, cwd=workspace)
    assert verify.returncode == 0, verify.stdout
    assert '"run_outcome"' in path.read_text(encoding="utf-8")
