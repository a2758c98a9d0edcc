"""execute_command tells the truth about processes it cannot stop: one that
leaves the command's process group (setsid) is reported with its pid, never
claimed as stopped; background processes still in the group are reported
too, and a shutdown kills every live command group (issue 12, class 2)."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.tools import process
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.tools.trusted_urls import TrustedUrls
from tests.support.procs import alive, gone_within, kill_quietly, leads_own_session_within, read_pids
from tests.support.timing import scaled

pytestmark = pytest.mark.timeout(30)


def execute(workspace: Path, cancel: threading.Event | None = None, **args):
    ctx = ToolContext("tester", cancel or threading.Event(), TrustedUrls(), AutoApprover())
    registry = ToolRegistry(workspace, Settings(command_timeout=30, sandbox="off"))
    return registry.execute(ToolCall("x", "execute_command", json.dumps(args)), ctx)


def reported_pids(content: str) -> list[int]:
    match = re.search(r"left the command's process group and may still be running \(pids? ([\d ,]+)\)", content)
    assert match, content
    return [int(pid) for pid in match.group(1).replace(",", " ").split()]


@pytest.mark.parametrize("command", [
    "(setsid sleep 300 > /dev/null 2>&1 & echo $! > pids)",
    "setsid sleep 300 > /dev/null 2>&1 & echo $! > pids",
])
def test_a_process_that_escaped_with_setsid_is_reported_not_claimed_stopped(tmp_path, command):
    result = execute(tmp_path, command=command)
    pids = read_pids(tmp_path / "pids", 1, 10)
    try:
        assert result.ok, result.content
        assert "1 process left the command's process group" in result.content
        assert alive(pids[0]) and reported_pids(result.content) == pids
        assert "were stopped" not in result.content
    finally:
        kill_quietly(pids)


def test_an_escaped_process_holding_the_output_is_not_called_stopped(tmp_path):
    # Today: "background processes … were stopped", while the sleep runs on.
    result = execute(tmp_path, command="setsid sleep 300 & echo $! > pids; echo launched")
    pids = read_pids(tmp_path / "pids", 1, 10)
    try:
        assert "launched" in result.content
        assert "were stopped" not in result.content
        assert reported_pids(result.content) == pids and alive(pids[0])
    finally:
        kill_quietly(pids)


def test_cancel_kills_the_group_and_reports_what_escaped(tmp_path):
    cancel = threading.Event()
    outcome = {}
    command = "setsid sleep 300 > /dev/null 2>&1 & echo $! > pids; sleep 300 & echo $! >> pids; wait"
    worker = threading.Thread(target=lambda: outcome.setdefault("result", execute(tmp_path, cancel, command=command)))
    worker.start()
    pids = []
    try:
        pids = read_pids(tmp_path / "pids", 2, 10)
        escaped, grouped = pids
        assert leads_own_session_within(escaped, 10)
        cancel.set()
        worker.join(timeout=scaled(10))
        content = outcome["result"].content
        assert content.startswith("cancelled; the process group was killed")
        assert reported_pids(content) == [escaped] and alive(escaped)
        assert gone_within([grouped], 5)
    finally:
        cancel.set()
        kill_quietly(pids)


def test_background_processes_left_in_the_group_are_named_and_killed_at_shutdown(tmp_path):
    result = execute(tmp_path, command="sleep 300 > /dev/null 2>&1 & echo $! > pids")
    pids = read_pids(tmp_path / "pids", 1, 10)
    try:
        assert result.ok and f"still running in the command's process group (pid {pids[0]})" in result.content
        assert alive(pids[0])
        process.kill_live_groups()
        assert gone_within(pids, 5)
    finally:
        kill_quietly(pids)


def test_closing_the_session_kills_what_its_commands_left_running(tmp_path):
    from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
    from paicli_tui.session.live import Session

    command = "sleep 300 > /dev/null 2>&1 & echo $! > pids"
    script = Script({"react": [Reply(tool_calls=[("execute_command", {"command": command})]), Reply(content="started")]})
    settings = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0,
                        sandbox="off")  # unconfined, so the background sleep outlives its command
    session = Session(settings, tmp_path, approver=AutoApprover(), transport=ScriptedTransport(script))
    pids = []
    try:
        assert session.start_react("start a sleeper").result(timeout=20).ok
        pids = read_pids(tmp_path / "pids", 1, 10)
        assert alive(pids[0])
        session.close()
        assert gone_within(pids, 5)
    finally:
        session.close()
        kill_quietly(pids)
