"""The MCP start-up line above the input: shown with the server's name and
seconds while it starts, gone (and its clock stopped) once it is ready."""

from __future__ import annotations

from paicli_tui import events as ev
from paicli_tui.ui.conversation.mcp_progress import McpProgress
from tests.ui.conftest import settle

SIZE = (120, 36)


async def test_a_starting_server_shows_until_it_is_ready_and_then_no_clock_runs(app, session):
    async with app.run_test(size=SIZE) as pilot:
        progress = app.main_screen.query_one(McpProgress)
        assert not progress.display and progress._ticker is None
        session.bus.publish(ev.McpServerChanged("mcp", "docs", "starting", "stdio", "user"))
        await settle(pilot)
        assert progress.display
        assert "MCP starting: docs 0 s" in str(progress.render())
        assert progress._ticker is not None
        session.bus.publish(ev.McpServerChanged("mcp", "docs", "ready", "stdio", "user", "6 tools"))
        await settle(pilot)
        assert not progress.display
        assert progress._ticker is None
