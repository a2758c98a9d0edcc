"""Crash safety: a /team run killed with SIGKILL and a /plan run stopped
with SIGTERM at 30 seeded points each, every one resumed with
`paicli resume --last --yes`, and a budget stop resumed with a larger
budget. Real `python -m paicli_tui` subprocesses against the scripted
loopback server; each resumed run must end as the uninterrupted run did
(same files byte for byte, same task statuses), no task completed before
the stop may have its worker asked again (the server's requests are
counted), and `paicli verify` must pass on the resumed ledger.

A kill point is a ledger line count between the run's `run_started` and its
`run_finished` in the uninterrupted run: the process is stopped as soon as
its ledger holds that many lines, so the points fall where the run is, not
where a clock says (the machine may be loaded). Each point is its own test,
so xdist spreads them over its workers."""

from __future__ import annotations

import contextlib
import io
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paicli_tui.records.ledger import read_ledger
from paicli_tui.records.resume_state import KILLED_TEXT, read_resume_state
from tests.support.cli import paicli_env, run_paicli
from tests.support.resume_script import ResumeScript, content_of
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(90)]

#: Six steps: two chains joined at the fifth, then a last one.
STEPS = [("make one", []), ("make two", []), ("make three", [1]), ("make four", [2]), ("make five", [3, 4]),
         ("make six", [5])]
POINTS = 30
SEED = 29
DELAY = 0.02


def _script(kind: str) -> ResumeScript:
    return ResumeScript(kind, STEPS, reject="step_3" if kind == "team" else "", delay=DELAY)


def _ledger(home: Path) -> Path:
    files = sorted((home / "history" / "raw").glob("*.jsonl"))
    assert len(files) == 1, files
    return files[0]


def _lines(path: Path) -> list[dict]:
    return [line.data for line in read_ledger(path)]


def _statuses(lines: list[dict]) -> dict[str, str]:
    return {line["payload"]["task_id"]: line["payload"]["status"] for line in lines if line["event"] == "status"}


def _files(workspace: Path) -> dict[str, bytes]:
    return {str(p.relative_to(workspace)): p.read_bytes() for p in sorted(workspace.rglob("*")) if p.is_file()}


def _args(kind: str, server: LoopbackServer, workspace: Path, *extra: str, workers: int = 2) -> list[str]:
    return ["run", "--mode", kind, "--yes", "--base-url", server.base_url, "--model", "m", "--workspace",
            str(workspace), "--workers", str(workers), "--parallelism", str(workers), *extra, "make six files"]


def _folders(tmp: Path) -> tuple[Path, Path]:
    home, workspace = tmp / "home", tmp / "ws"
    workspace.mkdir(parents=True)
    (workspace / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    return home, workspace


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The uninterrupted runs: final files and statuses, and the kill window."""
    found = {}
    for kind in ("team", "plan"):
        home, workspace = _folders(tmp_path_factory.mktemp(f"reference-{kind}"))
        with LoopbackServer(_script(kind)) as server:
            proc = run_paicli(_args(kind, server, workspace), home=home, cwd=workspace, timeout=60)
        assert proc.returncode == 0, proc.stderr
        lines = _lines(_ledger(home))
        names = [line["event"] for line in lines]
        # SIGKILL may land up to the run's end (its result then is applied by the resume); SIGTERM
        # lets a run whose last task is done finish by itself, so its points end at that task.
        last_done = max(i for i, line in enumerate(lines) if line["event"] == "status"
                        and line["payload"]["status"] == "COMPLETED")
        window = (names.index("run_started") + 1, names.index("run_finished") if kind == "team" else last_done)
        found[kind] = (_files(workspace), _statuses(lines), window)
    return found


def _verify(path: Path) -> tuple[int, str]:
    """`paicli verify PATH` through the command line's own entry point, in
    this process (the interpreter's start-up is a third of a kill point's CPU)."""
    from paicli_tui.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["verify", str(path)])
    return code, out.getvalue()


def _stop_at(proc: subprocess.Popen, home: Path, count: int, signum: int) -> None:
    """Signal ``proc`` once its ledger holds ``count`` lines."""
    folder = home / "history" / "raw"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        files = list(folder.glob("*.jsonl")) if folder.is_dir() else []
        if files and files[0].read_bytes().count(b"\n") >= count:
            break
        time.sleep(0.005)
    assert proc.poll() is None, "the run ended before its kill point"
    proc.send_signal(signum)
    proc.communicate(timeout=30)


def _point(kind: str, index: int, window: tuple[int, int]) -> int:
    fractions = random.Random(f"{SEED}-{kind}").sample(range(1000), POINTS)
    low, high = window
    return low + (high - low) * fractions[index] // 1000


def _stop_and_resume(kind: str, index: int, signum: int, reference, tmp_path) -> None:
    files, statuses, window = reference[kind]
    home, workspace = _folders(tmp_path)
    script = _script(kind)
    with LoopbackServer(script) as server:
        proc = subprocess.Popen([sys.executable, "-m", "paicli_tui", *_args(kind, server, workspace)], cwd=workspace,
                                env=paicli_env(home), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        _stop_at(proc, home, _point(kind, index, window), signum)
        asked_before = len(script.requests)
        before = read_resume_state(_ledger(home))
        if signum == signal.SIGTERM and before.why_not == "it completed":
            # Stopped after its last task: the run finished and applied its result before it exited.
            assert _files(workspace) == files and _statuses(_lines(_ledger(home))) == statuses
            return None
        assert before.resumable, before.why_not
        resumed = run_paicli(["resume", "--last", "--yes", "--base-url", server.base_url, "--model", "m"],
                             home=home, cwd=workspace, timeout=60)
        assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-2000:]
        for task in before.kept:
            assert script.asked_about(task, since=asked_before) == [], f"{task} completed before the stop, asked again"
    assert _files(workspace) == files
    lines = _lines(_ledger(home))
    assert _statuses(lines) == statuses
    assert [line["event"] for line in lines].count("run_resumed") == 1
    code, printed = _verify(_ledger(home))
    assert code == 0, printed
    return lines


@pytest.mark.parametrize("index", range(POINTS))
def test_team_killed_anywhere_resumes_to_the_same_end(index, reference, tmp_path):
    lines = _stop_and_resume("team", index, signal.SIGKILL, reference, tmp_path)
    killed = [line for line in lines if line["event"] == "run_outcome" and line["payload"]["status"] == "killed"]
    assert [line["payload"]["text"] for line in killed] == [KILLED_TEXT]


@pytest.mark.parametrize("index", range(POINTS))
def test_plan_stopped_by_sigterm_anywhere_resumes_to_the_same_end(index, reference, tmp_path):
    lines = _stop_and_resume("plan", index, signal.SIGTERM, reference, tmp_path)
    if lines is None:
        return
    resumed = next(line for line in lines if line["event"] == "run_resumed")
    assert "SIGTERM" in resumed["payload"]["stopped"]


def test_a_budget_stop_resumes_with_a_larger_budget(reference, tmp_path):
    files, statuses, _ = reference["team"]
    home, workspace = _folders(tmp_path)
    script = _script("team")
    with LoopbackServer(script) as server:
        # One worker: the planner's call and three per step (two worker calls, one review), so seven
        # turns are spent exactly when step_2 is approved and the run stops between steps.
        stopped = run_paicli(_args("team", server, workspace, "--run-max-turns", "7", workers=1), home=home,
                             cwd=workspace, timeout=60)
        assert stopped.returncode == 1, stopped.stderr
        before = read_resume_state(_ledger(home))
        assert before.resumable and "run turn limit reached" in before.stopped
        assert before.kept == ["step_1", "step_2"] and before.redone == []
        asked_before = len(script.requests)
        again = run_paicli(["resume", "--last", "--yes", "--base-url", server.base_url, "--model", "m"],
                           home=home, cwd=workspace, timeout=60)
        assert again.returncode == 1, "the same budget stops the resumed run at once"
        resumed = run_paicli(["resume", "--last", "--yes", "--run-max-turns", "60", "--base-url", server.base_url,
                              "--model", "m"], home=home, cwd=workspace, timeout=60)
        assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-2000:]
        for task in before.kept:
            assert script.asked_about(task, since=asked_before) == []
    assert _files(workspace) == files
    lines = _lines(_ledger(home))
    assert _statuses(lines) == statuses
    spent = [line["payload"]["spent"]["turns"] for line in lines if line["event"] == "run_resumed"]
    assert spent[0] == 7 and spent[1] == 7, "the budget goes on from what was spent"
    assert _verify(_ledger(home))[0] == 0
