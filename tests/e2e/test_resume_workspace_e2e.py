"""The workspace is checked before a run goes on: files the person changed
since the run began are named, and the run's result is merged with them as
isolation always merges (a file both changed keeps the person's version).
Real `paicli run` killed with SIGKILL, real `paicli resume`, real git."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from paicli_tui.records.ledger import read_ledger
from tests.support.cli import paicli_env, run_paicli
from tests.support.resume_script import ResumeScript, content_of
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(90)]

STEPS = [("make one", []), ("make two", [1]), ("make three", [2])]


def _ledger(home):
    (path,) = (home / "history" / "raw").glob("*.jsonl")
    return path


def _kill_after_first_step(proc, home) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        files = list((home / "history" / "raw").glob("*.jsonl")) if (home / "history" / "raw").is_dir() else []
        if files and b'"task_id": "step_1", "status": "COMPLETED"' in files[0].read_bytes():
            break
        time.sleep(0.005)
    assert proc.poll() is None, "the run ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)


def test_files_changed_since_the_stop_are_named_and_kept(tmp_path):
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    script = ResumeScript("team", STEPS, delay=0.1)
    with LoopbackServer(script) as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "paicli_tui", "run", "--mode", "team", "--yes", "--base-url", server.base_url,
             "--model", "m", "--workspace", str(workspace), "--workers", "1", "make three files"],
            cwd=workspace, env=paicli_env(home), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        _kill_after_first_step(proc, home)
        # Meanwhile the person edits a file of theirs and writes one the run will write too.
        (workspace / "notes.txt").write_text("alpha\nbeta\nmine\n", encoding="utf-8")
        (workspace / "step_3.txt").write_text("my own step three\n", encoding="utf-8")
        resumed = run_paicli(["resume", "--last", "--yes", "--base-url", server.base_url, "--model", "m"],
                             home=home, cwd=workspace, timeout=60)
    assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-2000:]
    assert "changed in the workspace since the run stopped" in resumed.stdout
    assert "notes.txt" in resumed.stdout and "step_3.txt" in resumed.stdout
    assert (workspace / "notes.txt").read_text(encoding="utf-8") == "alpha\nbeta\nmine\n"
    assert (workspace / "step_3.txt").read_text(encoding="utf-8") == "my own step three\n"
    assert (workspace / "step_1.txt").read_text(encoding="utf-8") == content_of("step_1")
    assert (workspace / "step_2.txt").read_text(encoding="utf-8") == content_of("step_2")
    lines = list(read_ledger(_ledger(home)))
    (applied,) = [line.payload for line in lines if line.event == "run_applied"]
    assert applied["kept"] == ["step_3.txt"], "the person's version of a file both changed is kept"
    (outcome,) = [line.payload for line in lines if line.event == "run_outcome" and line.payload["status"] != "killed"]
    assert "kept your own edits to step_3.txt" in outcome["text"]
    (resumed_line,) = [line.payload for line in lines if line.event == "run_resumed"]
    assert sorted(resumed_line["edited"]) == ["notes.txt", "step_3.txt"]
    assert resumed_line["kept"] == ["step_1"]
    assert run_paicli(["verify", str(_ledger(home))], home=home, cwd=workspace).returncode == 0


def test_an_isolated_team_run_that_changed_files_verifies(tmp_path):
    """merge-records read a verdict's step from a field verdicts do not
    carry, so every approved, merged team step was called unapproved."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    with LoopbackServer(ResumeScript("team", STEPS, delay=0)) as server:
        done = run_paicli(["run", "--mode", "team", "--yes", "--base-url", server.base_url, "--model", "m",
                           "--workspace", str(workspace), "make three files"], home=home, cwd=workspace, timeout=60)
    assert done.returncode == 0, done.stderr
    merged = [line for line in read_ledger(_ledger(home)) if line.event == "task_merged"]
    assert len(merged) == 3
    verified = run_paicli(["verify", str(_ledger(home))], home=home, cwd=workspace)
    assert verified.returncode == 0, verified.stdout
