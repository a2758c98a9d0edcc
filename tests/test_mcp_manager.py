"""The session's MCP servers without the rest of paicli: real FastMCP
servers over stdio, restarted, timed out, cancelled and stopped."""

from __future__ import annotations

import threading
import time

import pytest

from paicli_tui.events import EventBus
from paicli_tui.mcp.manager import McpManager
from paicli_tui.config.mcp_settings import McpSettings
from paicli_tui.mcp.specs import load_mcp_config
from paicli_tui.tools.base import ToolError, ToolStopped
from paicli_tui.tools.process import LIVE_GROUPS
from tests.support.mcp_config import SERVER
from tests.support.procs import alive, kill_quietly
from tests.support.timing import scaled

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def manager(tmp_path):
    import sys

    settings = McpSettings(servers={"one": {"command": sys.executable, "args": [str(SERVER)]}}, startup_timeout=scaled(40))
    bus = EventBus("test")
    seen = []
    bus.subscribe(seen.append)
    running = McpManager(load_mcp_config(settings, tmp_path, {}), settings, bus, tmp_path, trusted=True)
    running.seen = seen
    running.start()
    running.wait_started()
    pids = [s.pid for s in running.statuses()]
    yield running
    running.close()
    kill_quietly([*pids, *(s.pid for s in running.statuses())])


def wait_for(predicate, seconds=40.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_restart_replaces_the_process_and_the_old_one_ends(manager):
    [before] = manager.statuses()
    assert before.state == "ready" and alive(before.pid) and before.pid in LIVE_GROUPS.pgids()
    assert manager.restart("one") and not manager.restart("nobody")
    assert wait_for(lambda: manager.statuses()[0].state == "ready" and manager.statuses()[0].pid != before.pid)
    after = manager.statuses()[0]
    assert not alive(before.pid) and alive(after.pid)
    assert before.pid not in LIVE_GROUPS.pgids()
    states = [e.state for e in manager.seen if getattr(e, "server", "") == "one"]
    assert states == ["starting", "ready", "stopping", "stopped", "starting", "ready"]
    result = manager.call_tool("one", "add", {"a": 1, "b": 2}, 20, threading.Event())
    assert result.content[0].text == "3"


def test_a_call_stops_at_its_deadline_or_on_cancel_and_the_server_stays_usable(manager):
    started = time.monotonic()
    with pytest.raises(ToolError, match="in time"):
        manager.call_tool("one", "slow", {"seconds": 30}, 1.0, threading.Event())
    assert time.monotonic() - started < 5
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    with pytest.raises(ToolStopped, match="cancelled"):
        manager.call_tool("one", "slow", {"seconds": 30}, 20, cancel)
    assert manager.statuses()[0].state == "ready"
    assert manager.call_tool("one", "echo", {"text": "still"}, 20, threading.Event()).content[0].text == "echo: still"


def test_close_ends_every_server_process(manager):
    pid = manager.statuses()[0].pid
    manager.close()
    assert not alive(pid) and pid not in LIVE_GROUPS.pgids()
    assert manager.statuses()[0].state == "stopped"
    assert not manager.restart("one")  # closed: nothing starts again


def _tagged(tag: str) -> list[int]:
    """Live daemons the fixture left with ``tag`` in their command line (seen from outside
    any namespace, unlike a pid the process writes itself)."""
    from pathlib import Path

    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if f"daemon:{tag}".encode() in (entry / "cmdline").read_bytes() and alive(int(entry.name)):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _daemonizing_manager(tmp_path, tag: str) -> McpManager:
    import sys

    settings = McpSettings(servers={"d": {"command": sys.executable, "args": [str(SERVER), "--daemon", tag]}},
                           startup_timeout=scaled(40))
    running = McpManager(load_mcp_config(settings, tmp_path, {}), settings, EventBus("test"), tmp_path, trusted=True)
    running.start()
    running.wait_started()
    assert running.statuses()[0].state == "ready"
    return running


def test_a_daemon_a_server_left_behind_ends_when_the_session_closes(tmp_path):
    tag = f"paicli-daemon-{time.monotonic_ns()}"
    running = _daemonizing_manager(tmp_path, tag)
    try:
        assert wait_for(lambda: len(_tagged(tag)) == 1, 10)
        running.close()
        assert wait_for(lambda: _tagged(tag) == [], 5), _tagged(tag)
    finally:
        running.close()
        kill_quietly(_tagged(tag))


def test_a_daemon_a_server_left_behind_ends_when_the_server_restarts(tmp_path):
    tag = f"paicli-daemon-{time.monotonic_ns()}"
    running = _daemonizing_manager(tmp_path, tag)
    try:
        assert wait_for(lambda: len(_tagged(tag)) == 1, 10)
        [first] = _tagged(tag)
        before = running.statuses()[0].pid
        assert running.restart("d")
        assert wait_for(lambda: running.statuses()[0].state == "ready" and running.statuses()[0].pid != before)
        # The new server left its own daemon; the old one's is gone.
        assert wait_for(lambda: first not in _tagged(tag) and len(_tagged(tag)) == 1, 10), _tagged(tag)
    finally:
        running.close()
        kill_quietly(_tagged(tag))


def test_garbage_on_a_server_s_stdout_is_one_line_naming_the_server(tmp_path):
    import sys

    settings = McpSettings(servers={"noisy": {"command": sys.executable,
                                              "args": [str(SERVER), "--garbage", "Starting server v1.2 ..."]}},
                           startup_timeout=scaled(40))
    bus = EventBus("test")
    seen = []
    bus.subscribe(seen.append)
    running = McpManager(load_mcp_config(settings, tmp_path, {}), settings, bus, tmp_path, trusted=True)
    started = time.monotonic()
    try:
        running.start()
        running.wait_started()
        [status] = running.statuses()
    finally:
        running.close()
    assert time.monotonic() - started < 20  # not the startup timeout
    assert status.state == "failed"
    assert "not JSON-RPC on stdout: 'Starting server v1.2 ...'" in status.detail and "\n" not in status.detail
    from paicli_tui.present.event_lines import describe

    failed = [e for e in seen if getattr(e, "state", "") == "failed"]
    line = describe(failed[-1]).text
    assert line.startswith("MCP server noisy did not start: wrote something that is not JSON-RPC"), line
