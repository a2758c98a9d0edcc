"""The MCP start-up line above the input: shown with the server's name and
seconds while it starts, gone (and its clock stopped) once it is ready."""

from __future__ import annotations

import re
import time

from paicli_tui import events as ev
from paicli_tui.ui.conversation.mcp_progress import McpProgress
from tests.ui.conftest import settle

SIZE = (120, 36)


async def test_a_starting_server_shows_until_it_is_ready_and_then_no_clock_runs(app, session):
    async with app.run_test(size=SIZE) as pilot:
        progress = app.main_screen.query_one(McpProgress)
        assert not progress.display and progress._ticker is None
        published = time.monotonic()
        session.bus.publish(ev.McpServerChanged("mcp", "docs", "starting", "stdio", "user"))
        await settle(pilot)
        assert progress.display
        shown = re.search(r"MCP starting: docs (\d+) s", str(progress.render()))
        assert shown is not None, progress.render()
        # The clock counts from the event: no more seconds than have passed
        # since it was published (a loaded machine may take a second to settle).
        assert int(shown.group(1)) <= time.monotonic() - published
        assert progress._ticker is not None
        session.bus.publish(ev.McpServerChanged("mcp", "docs", "ready", "stdio", "user", "6 tools"))
        await settle(pilot)
        assert not progress.display
        assert progress._ticker is None
