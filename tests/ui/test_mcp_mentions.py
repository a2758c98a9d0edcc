"""`@` offers the resources of the ready MCP servers (``server:uri``) before
the workspace's files; taking one puts ``@server:uri`` in the prompt, which
attaches the resource when sent. A real FastMCP server over stdio."""

from __future__ import annotations

import sys

import pytest

from paicli_tui.config.mcp_settings import McpSettings
from paicli_tui.events import EventBus
from paicli_tui.mcp.manager import McpManager
from paicli_tui.mcp.specs import load_mcp_config
from paicli_tui.ui.conversation.completion_menu import CompletionMenu
from tests.support.mcp_config import SERVER
from tests.support.procs import kill_quietly
from tests.support.timing import scaled
from tests.ui.conftest import RecordingApp
from tests.ui.test_command_menu import picker_app, wait_for_menu

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def docs_server(tmp_path):
    settings = McpSettings(servers={"one": {"command": sys.executable, "args": [str(SERVER)]}},
                           startup_timeout=scaled(40))
    manager = McpManager(load_mcp_config(settings, tmp_path, {}), settings, EventBus("test"), tmp_path, trusted=True)
    manager.start()
    manager.wait_started()
    pids = [s.pid for s in manager.statuses()]
    yield manager
    manager.close()
    kill_quietly([*pids, *(s.pid for s in manager.statuses())])


async def test_at_offers_the_mcp_resources_first_and_inserts_server_and_uri(tmp_path, docs_server):
    assert "one:docs://guide" in docs_server.resource_uris()
    app: RecordingApp = picker_app(tmp_path / "ws")
    app.session.mcp = docs_server
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press(*"see", "space", "@")
        shown = await wait_for_menu(pilot, app)
        assert shown[:2] == ["one:docs://big", "one:docs://guide"] or shown[:2] == ["one:docs://guide", "one:docs://big"]
        assert "README.md" in shown  # the files follow
        assert "MCP resources" in str(app.main_screen.query_one(CompletionMenu).border_title)
        await pilot.press(*"guide")
        await pilot.pause()
        menu = app.main_screen.query_one(CompletionMenu)
        assert menu.items[0].label == "one:docs://guide"
        await pilot.press("tab")
        assert app.main_screen.prompt.text == "see @one:docs://guide "

