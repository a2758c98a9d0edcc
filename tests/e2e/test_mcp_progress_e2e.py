"""A server that takes its time to start shows, above the input, which one
is starting and for how long, counting up, instead of nothing until it is
ready or times out. The real app in a pseudo-terminal, a real stdio server
that never answers."""

from __future__ import annotations

import re

import pytest

from tests.support.cli import paicli_env
from tests.support.mcp_config import stdio_table
from tests.support.pty_app import PtyApp

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(150)]


def seconds_shown(screen: str) -> int | None:
    found = re.search(r"MCP starting: slow (\d+) s", screen)
    return int(found.group(1)) if found else None


def test_a_slow_mcp_server_shows_its_name_and_a_running_clock_while_it_starts(workspace, paicli_home):
    (paicli_home / "config.toml").write_text(
        "[mcp]\nstartup_timeout = 120\n\n" + stdio_table("slow", "--hang"), encoding="utf-8")
    app = PtyApp(["--demo"], cwd=workspace, env=paicli_env(paicli_home))
    try:
        screen = app.wait_for(lambda s: seconds_shown(s) is not None, timeout=60)
        first = seconds_shown(screen)
        screen = app.wait_for(lambda s: (seconds_shown(s) or -1) >= first + 2, timeout=30)
        assert "/mcp shows each" in screen
        app.send(b"\x03")
        app.wait_for(lambda s: "again to quit" in s, timeout=20)
        app.send(b"\x03")
        assert app.wait_exit(20) == 0  # a server still starting does not hold up the quit
    finally:
        app.close()
