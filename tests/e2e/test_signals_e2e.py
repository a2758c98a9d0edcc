"""SIGTERM and SIGHUP end a headless run the way Esc does (issue 12, class 2):
the real `paicli run` as a subprocess against a loopback server, a scripted
model that starts a long command, and a real signal once it runs."""

from __future__ import annotations

# These tests read the pids a command wrote and signal them: unconfined, since
# inside the sandbox pids belong to its own PID namespace (tests/test_sandbox.py
# shows that nothing a sandboxed command starts outlives it).

import os
import signal
import subprocess
import sys
import time

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import events, ledger_lines, paicli_env
from tests.support.procs import gone_within, group_members, kill_quietly, read_pids, wait_for_ledger_event
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(90)]

#: The shell writes its pid (= the group id) and the sleep's pid, then waits.
LONG_COMMAND = "echo $$ > pids; sleep 300 & echo $! >> pids; wait"


def long_command_script() -> Script:
    call = Reply(tool_calls=[("execute_command", {"command": LONG_COMMAND, "timeout": 300})])
    return Script({"react": [call, Reply(content="done")]})


def start_run(server, workspace, home):
    return subprocess.Popen(
        [sys.executable, "-m", "paicli_tui", "run", "--yes", "--base-url", server.base_url, "--model", "m",
         "--workspace", str(workspace), "run the long command"],
        cwd=workspace, env=paicli_env(home, PAICLI_SANDBOX="off"), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_signal_kills_the_command_group_and_records_the_outcome(workspace, paicli_home, signum, code):
    pids: list[int] = []
    with LoopbackServer(long_command_script()) as server:
        proc = start_run(server, workspace, paicli_home)
        try:
            pids = read_pids(workspace / "pids", 2, 30)
            proc.send_signal(signum)
            out, err = proc.communicate(timeout=30)
            shell, sleeper = pids
            assert proc.returncode == code, err
            assert gone_within([sleeper], 5), "the command's sleep outlived paicli"
            assert group_members(shell) == [], "the command's process group outlived paicli"
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate(timeout=10)
            kill_quietly(pids[1:], groups=pids[:1])
    lines = ledger_lines(paicli_home)
    (cancelled,) = events(lines, "run_cancelled")
    assert signal.Signals(signum).name in cancelled["payload"]["reason"]
    (outcome,) = events(lines, "run_outcome")
    assert outcome["payload"]["status"] == "cancelled" and outcome["payload"]["ok"] is False
    (result,) = events(lines, "tool_result")
    assert "cancelled" in result["payload"]["summary"]
    assert [line["seq"] for line in lines] == list(range(1, len(lines) + 1))


def test_the_same_signal_twice_at_once_still_records_the_outcome(workspace, paicli_home):
    """What `timeout` does: SIGTERM to the process, then to its group."""
    pids: list[int] = []
    with LoopbackServer(long_command_script()) as server:
        proc = start_run(server, workspace, paicli_home)
        try:
            pids = read_pids(workspace / "pids", 2, 30)
            proc.send_signal(signal.SIGTERM)
            time.sleep(0.05)
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=30)
            assert proc.returncode == 143, err
            assert "again while stopping" not in err
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate(timeout=10)
            kill_quietly(pids[1:], groups=pids[:1])
    lines = ledger_lines(paicli_home)
    assert len(events(lines, "run_cancelled")) == 1
    (outcome,) = events(lines, "run_outcome")
    assert outcome["payload"]["status"] == "cancelled"


def test_a_second_signal_exits_at_once_and_still_kills_the_group(workspace, paicli_home):
    # The command ignores SIGTERM, so the cancel's group kill waits out its
    # grace before SIGKILL: the second signal lands while paicli is stopping.
    command = "trap '' TERM; echo $$ > pids; sleep 300 & echo $! >> pids; wait"
    call = Reply(tool_calls=[("execute_command", {"command": command, "timeout": 300})])
    pids: list[int] = []
    with LoopbackServer(Script({"react": [call, Reply(content="done")]})) as server:
        proc = start_run(server, workspace, paicli_home)
        try:
            pids = read_pids(workspace / "pids", 2, 30)
            proc.send_signal(signal.SIGTERM)
            wait_for_ledger_event(paicli_home, "run_cancelled")  # a pending signal is not queued twice
            # Another signal: the same one within DUPLICATE_WINDOW_S would
            # count as one delivered twice (to the process and its group).
            proc.send_signal(signal.SIGHUP)
            out, err = proc.communicate(timeout=30)
            assert proc.returncode == 143, err
            assert "SIGHUP again while stopping" in err
            assert gone_within(pids[1:], 5) and group_members(pids[0]) == []
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate(timeout=10)
            kill_quietly(pids[1:], groups=pids[:1])


def test_a_run_that_does_not_stop_within_the_grace_is_ended(workspace, paicli_home, tmp_path):
    # Line-mode review blocks on a stdin that never answers: no cancel can
    # reach that read, so only the grace period ends the program.
    plan = tmp_path / "plan.json"
    plan.write_text('{"tasks": [{"id": "task_1", "description": "look around", "type": "analysis"}]}', encoding="utf-8")
    with LoopbackServer(Script()) as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "paicli_tui", "run", "--mode", "plan", "--plan-file", str(plan),
             "--base-url", server.base_url, "--model", "m", "--workspace", str(workspace), "look around"],
            cwd=workspace, env=paicli_env(paicli_home, PAICLI_SANDBOX="off"), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        try:
            waiting_for_review = b""
            while b"Run this plan?" not in waiting_for_review:
                chunk = proc.stdout.read1(4096)
                assert chunk, "paicli ended before asking for the review"
                waiting_for_review += chunk
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=40)
            err = proc.stderr.read().decode()
            assert proc.returncode == 143, err
            assert "did not stop within" in err and "Traceback" not in err
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
            proc.stdin.close()
    (cancelled,) = events(ledger_lines(paicli_home), "run_cancelled")
    assert "SIGTERM" in cancelled["payload"]["reason"]


def test_sighup_after_the_terminal_went_away_ends_cleanly(workspace, paicli_home, tmp_path):
    """stdout is a terminal that is closed before the hangup: the prints
    after it must not raise (stderr goes to a file so the test can read it)."""
    master, slave = os.openpty()
    err_path = tmp_path / "stderr.txt"
    pids: list[int] = []
    with LoopbackServer(long_command_script()) as server, open(err_path, "wb") as err_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "paicli_tui", "run", "--yes", "--base-url", server.base_url, "--model", "m",
             "--workspace", str(workspace), "run the long command"],
            cwd=workspace, env=paicli_env(paicli_home, PAICLI_SANDBOX="off"), stdin=subprocess.DEVNULL,
            stdout=slave, stderr=err_file, start_new_session=True,
        )
        os.close(slave)
        try:
            pids = read_pids(workspace / "pids", 2, 30)
            os.close(master)
            master = -1
            proc.send_signal(signal.SIGHUP)
            assert proc.wait(timeout=30) == 129, err_path.read_text()
            assert gone_within(pids[1:], 5) and group_members(pids[0]) == []
        finally:
            if master >= 0:
                os.close(master)
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
            kill_quietly(pids[1:], groups=pids[:1])
    err = err_path.read_text()
    assert "Traceback" not in err and "Error" not in err, err
    (outcome,) = events(ledger_lines(paicli_home), "run_outcome")
    assert outcome["payload"]["status"] == "cancelled"
