"""SIGTERM and SIGHUP close the real full-screen app the way Esc then quit
would (issue 12, class 2): `paicli` in a pseudo-terminal against a loopback
server whose scripted model starts a long command; a real signal once the
command runs."""

from __future__ import annotations

# These tests read the pids a command wrote and signal them: unconfined, since
# inside the sandbox pids belong to its own PID namespace (tests/test_sandbox.py
# shows that nothing a sandboxed command starts outlives it).

import signal

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import events, ledger_lines, paicli_env
from tests.support.procs import gone_within, group_members, kill_quietly, read_pids, wait_for_ledger_event
from tests.support.pty_app import PtyApp
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

#: Seconds the app may take to come up or react: the machine is shared.
STEP = 40.0
LONG_COMMAND = "echo $$ > pids; sleep 300 & echo $! >> pids; wait"


@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_signal_closes_the_app_kills_the_command_group_and_records_the_outcome(tmp_path, signum, code):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    call = Reply(tool_calls=[("execute_command", {"command": LONG_COMMAND, "timeout": 300})])
    pids: list[int] = []
    with LoopbackServer(Script({"react": [call, Reply(content="done")]})) as server:
        app = PtyApp(["--base-url", server.base_url, "--model", "m", "--workspace", str(workspace)],
                     cwd=workspace, env=paicli_env(home, PAICLI_SANDBOX="off"))
        try:
            app.wait_for(lambda text: "shift+tab to cycle" in text, STEP)
            app.type("run the long command")
            app.send(b"\r")
            pids = read_pids(workspace / "pids", 2, STEP)
            app.proc.send_signal(signum)
            assert app.wait_exit(STEP) == code
            assert gone_within(pids[1:], 5), "the command's sleep outlived paicli"
            assert group_members(pids[0]) == [], "the command's process group outlived paicli"
        finally:
            app.close()
            kill_quietly(pids[1:], groups=pids[:1])
    lines = ledger_lines(home)
    (cancelled,) = events(lines, "run_cancelled")
    assert signal.Signals(signum).name in cancelled["payload"]["reason"]
    (outcome,) = events(lines, "run_outcome")
    assert outcome["payload"]["status"] == "cancelled"


def test_a_second_sigterm_while_the_app_stops_exits_at_once_and_kills_the_group(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    # Ignoring SIGTERM holds the cancel's group kill for its grace period,
    # so the second signal lands while the app is still stopping.
    command = "trap '' TERM; echo $$ > pids; sleep 300 & echo $! >> pids; wait"
    call = Reply(tool_calls=[("execute_command", {"command": command, "timeout": 300})])
    pids: list[int] = []
    with LoopbackServer(Script({"react": [call, Reply(content="done")]})) as server:
        app = PtyApp(["--base-url", server.base_url, "--model", "m", "--workspace", str(workspace)],
                     cwd=workspace, env=paicli_env(home, PAICLI_SANDBOX="off"))
        try:
            app.wait_for(lambda text: "shift+tab to cycle" in text, STEP)
            app.type("run the long command")
            app.send(b"\r")
            pids = read_pids(workspace / "pids", 2, STEP)
            app.proc.send_signal(signal.SIGTERM)
            wait_for_ledger_event(home, "run_cancelled")  # a pending signal is not queued twice
            # Another signal: the same one at once counts as one delivered
            # twice (to the process and its group, as `timeout` does).
            app.proc.send_signal(signal.SIGHUP)
            assert app.wait_exit(STEP) == 143
            app.pump(0.5)
            assert "SIGHUP again while stopping" in app.text()
            assert gone_within(pids[1:], 5) and group_members(pids[0]) == []
        finally:
            app.close()
            kill_quietly(pids[1:], groups=pids[:1])
