"""execute_command with real subprocesses: exit codes, output caps, and the
whole process group killed on timeout, cancel and stray background jobs."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext
from paicli_tui.tools import process
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.tools.trusted_urls import TrustedUrls


def alive(pid: int) -> bool:
    """True for a running process; a zombie waiting for its reaper is dead."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def execute(workspace: Path, cancel: threading.Event | None = None, sandbox: str = "auto", **args):
    """``sandbox="off"`` for the tests that read pids a command wrote: inside
    the sandbox those are pids of its own PID namespace."""
    ctx = ToolContext("tester", cancel or threading.Event(), TrustedUrls(), AutoApprover())
    registry = ToolRegistry(workspace, Settings(command_timeout=30, sandbox=sandbox))
    return registry.execute(ToolCall("x", "execute_command", json.dumps(args)), ctx)


def wait_for_pids(path: Path, count: int, stop: threading.Event) -> list[int]:
    while not stop.wait(0.02):
        if path.exists():
            pids = path.read_text().split()
            if len(pids) >= count:
                return [int(p) for p in pids]
    raise AssertionError("the command never wrote its pids")


def test_exit_code_output_and_cwd(tmp_path):
    (tmp_path / "marker.txt").write_text("here")
    ok = execute(tmp_path, command="cat marker.txt; echo; echo err >&2")
    assert ok.ok and ok.content == "exit code 0\nhere\nerr"
    assert ok.summary.startswith("exit 0 in ")
    failed = execute(tmp_path, command="echo partial; exit 3")
    assert not failed.ok and failed.content.startswith("exit code 3\n") and "partial" in failed.content


def test_output_keeps_head_and_tail(tmp_path):
    result = execute(tmp_path, command="echo START; head -c 200000 /dev/zero | tr '\\0' a; echo; echo END")
    assert result.ok
    assert "START" in result.content and result.content.rstrip().endswith("END")
    assert "bytes omitted …" in result.content
    assert len(result.content) < 40_000


def test_stdin_is_closed(tmp_path):
    result = execute(tmp_path, command="cat; echo after")
    assert result.ok and "after" in result.content


@pytest.mark.timeout(20)
def test_timeout_kills_the_whole_group(tmp_path):
    script = "sleep 30 & echo $! > pids; bash -c 'sleep 30' & echo $! >> pids; sleep 30"
    result = execute(tmp_path, command=script, timeout=0.5, sandbox="off")
    assert not result.ok
    assert result.content.startswith("timed out after 0.5 s; the process group was killed")
    pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
    assert len(pids) == 2
    assert not any(alive(pid) for pid in pids)


@pytest.mark.timeout(20)
def test_processes_ignoring_sigterm_get_sigkill(tmp_path, monkeypatch):
    monkeypatch.setattr(process, "TERM_GRACE_S", 0.2)
    result = execute(tmp_path, command="trap '' TERM; sleep 30 & echo $! > pids; wait", timeout=0.5, sandbox="off")
    assert "timed out" in result.content
    assert not alive(int((tmp_path / "pids").read_text()))


@pytest.mark.timeout(20)
def test_cancel_kills_the_group(tmp_path):
    cancel = threading.Event()
    outcome = {}
    worker = threading.Thread(target=lambda: outcome.setdefault(
        "result", execute(tmp_path, cancel, "off", command="sleep 30 & echo $! > pids; sleep 30")))
    worker.start()
    giveup = threading.Event()
    timer = threading.Timer(10, giveup.set)
    timer.start()
    try:
        pids = wait_for_pids(tmp_path / "pids", 1, giveup)
    finally:
        timer.cancel()
    cancel.set()
    worker.join(timeout=10)
    assert not worker.is_alive()
    assert outcome["result"].content.startswith("cancelled; the process group was killed")
    assert not alive(pids[0])


def test_already_cancelled_does_not_start(tmp_path):
    cancel = threading.Event()
    cancel.set()
    result = execute(tmp_path, cancel, command="touch started")
    assert not result.ok and not (tmp_path / "started").exists()


@pytest.mark.timeout(20)
def test_background_job_holding_the_output_is_stopped(tmp_path):
    result = execute(tmp_path, command="sleep 30 & echo $! > pids; echo launched", sandbox="off")
    assert result.ok and "launched" in result.content
    assert "background processes still held the output" in result.content
    assert not alive(int((tmp_path / "pids").read_text()))


@pytest.mark.timeout(20)
def test_detached_background_job_keeps_running(tmp_path):
    result = execute(tmp_path, command="sleep 30 > /dev/null 2>&1 & echo $! > pids")
    pid = int((tmp_path / "pids").read_text())
    try:
        assert result.ok and "background" not in result.content
        assert alive(pid)
    finally:
        os.kill(pid, signal.SIGKILL)


def test_timeout_argument_is_validated_and_capped(tmp_path):
    bad = execute(tmp_path, command="true", timeout=0)
    assert not bad.ok and "timeout" in bad.content
    capped = execute(tmp_path, command="true", timeout=100000)
    assert capped.ok and "[timeout capped at 600 s]" in capped.content
