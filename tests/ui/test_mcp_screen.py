"""/mcp (P-9.1): every server's state, the chosen one's tools and
resources, restart, agreeing to the workspace's .mcp.json. A stand-in
manager gives the snapshots the real one would; the real one is driven in
tests/e2e/test_mcp_app_e2e.py."""

from __future__ import annotations

import pytest

from paicli_tui.mcp.manager import ResourceView, ServerStatus, ToolView
from paicli_tui.ui.app import PaicliApp
from paicli_tui.ui.mcp.mcp_screen import McpScreen
from paicli_tui.ui.mcp.mcp_view import NO_SERVERS
from tests.ui.conftest import settle, submit
from tests.ui.fake_session import WORKSPACE, FakeSession

READY = ServerStatus(
    "docs", "config", "stdio", "npx -y docs-server", "ready", "2 tools, 1 resource",
    (ToolView("mcp__docs__search", "[MCP server docs] Search the docs.", True),
     ToolView("mcp__docs__publish", "[MCP server docs] Publish a page.", False)),
    (ResourceView("docs://guide", "The project guide"),), pid=4242)
FAILED = ServerStatus("ghost", "config", "stdio", "no-such-server", "failed", "command 'no-such-server' not found")
WAITING = ServerStatus("repo", "workspace", "stdio", "python tools/server.py", "untrusted",
                       "press t to agree to this workspace's .mcp.json and start it")


class FakeManager:
    def __init__(self, statuses) -> None:
        self._statuses = list(statuses)
        self.untrusted = [s for s in self._statuses if s.state == "untrusted"]
        self.restarted: list[str] = []
        self.trusted = 0

    def statuses(self):
        return list(self._statuses)

    def restart(self, name: str) -> bool:
        self.restarted.append(name)
        return True

    def trust_workspace(self) -> list[str]:
        self.trusted += 1
        names = [s.name for s in self.untrusted]
        self._statuses = [ServerStatus(s.name, s.source, s.transport, s.target, "starting", "")
                          if s.state == "untrusted" else s for s in self._statuses]
        self.untrusted = []
        return names


def session_with(*statuses) -> FakeSession:
    session = FakeSession()
    session.mcp = FakeManager(statuses) if statuses else None
    return session


def screen_text(app) -> str:
    dialog = app.screen.query_one("#mcp-dialog")
    return "\n".join([str(dialog.border_title), str(dialog.border_subtitle), *(str(w.render()) for w in app.screen.query("Static"))]) + "\n" + "\n".join(
        str(app.screen.query_one("#mcp-list").get_option_at_index(i).prompt)
        for i in range(app.screen.query_one("#mcp-list").option_count))


async def open_mcp(pilot) -> None:
    await settle(pilot)
    await submit(pilot, "/mcp")
    await pilot.pause()
    assert isinstance(pilot.app.screen, McpScreen)


async def test_it_lists_every_server_and_the_chosen_ones_tools_and_resources():
    app = PaicliApp(session_with(READY, FAILED, WAITING), theme="paicli-dark")
    async with app.run_test(size=(120, 36)) as pilot:
        await open_mcp(pilot)
        text = screen_text(app)
        assert "docs  ready  stdio · config.toml — 2 tools, 1 resource" in text
        assert "ghost  failed  stdio · config.toml — command 'no-such-server' not found" in text
        assert "repo  untrusted  stdio · .mcp.json" in text
        assert "pid 4242 · npx -y docs-server" in text
        assert "mcp__docs__search  read-only  Search the docs." in text
        assert "mcp__docs__publish  Publish a page." in text and "[MCP server" not in text
        assert "docs://guide  — The project guide" in text and "@docs:URI" in text
        await pilot.press("down", "down")
        await pilot.pause()
        assert "python tools/server.py" in screen_text(app)  # what would start, before the person agrees


async def test_r_restarts_the_chosen_server_and_esc_closes():
    session = session_with(READY, FAILED)
    app = PaicliApp(session, theme="paicli-dark")
    async with app.run_test(size=(120, 36)) as pilot:
        await open_mcp(pilot)
        await pilot.press("down", "r")
        await pilot.pause()
        assert session.mcp.restarted == ["ghost"]
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, McpScreen)


async def test_a_workspace_server_starts_only_after_t():
    session = session_with(READY, WAITING)
    app = PaicliApp(session, theme="paicli-dark")
    notices = []
    app.notify = lambda message, **kw: notices.append(message)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_mcp(pilot)
        assert "t agree to .mcp.json and start it" in screen_text(app)
        await pilot.press("down", "r")
        await pilot.pause()
        assert session.mcp.restarted == [] and "press t to agree" in notices[-1]
        await pilot.press("t")
        await pilot.pause()
        assert session.mcp.trusted == 1 and notices[-1].startswith("starting repo")
        assert "repo  starting" in screen_text(app) and "t agree" not in screen_text(app)
        await pilot.press("t")
        await pilot.pause()
        assert session.mcp.trusted == 1 and "nothing to agree to" in notices[-1]


async def test_without_servers_it_says_how_to_add_one():
    app = PaicliApp(session_with(), theme="paicli-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await open_mcp(pilot)
        assert NO_SERVERS in screen_text(app)
        await pilot.press("r", "t")  # nothing to act on: nothing breaks


def test_help_lists_mcp_and_its_keys():
    from paicli_tui.ui.help.help_screen import command_rows
    from paicli_tui.ui.help.key_table import key_groups

    assert any(name == "/mcp" and "@server:uri" in text for name, text in command_rows())
    assert [(row.keys, row.description) for row in key_groups()["MCP"]] == [
        ("r", "Restart the highlighted server"), ("t", "Agree to this workspace's .mcp.json and start its servers"),
        ("Esc", "Close"), ("q", "Close")]


async def _mcp_open(pilot) -> None:
    await open_mcp(pilot)
    pilot.app.main_screen.prompt.cursor_blink = False
    await settle(pilot)


@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
def test_snapshot(snap_compare, size):
    app = PaicliApp(session_with(READY, FAILED, WAITING), theme="paicli-dark")
    assert snap_compare(app, terminal_size=size, run_before=_mcp_open)


async def test_an_mcp_approval_offers_the_tool_or_its_whole_server():
    from textual.widgets import Button

    from paicli_tui.policy.approval import ApprovalRequest
    from paicli_tui.policy.grants import proposed_grants
    from paicli_tui.ui.approval.approval import ApprovalScreen

    request = ApprovalRequest("react", "mcp__docs__publish", {"page": "guide"}, "ASK mode: every MCP tool call waits",
                              grants=proposed_grants("mcp__docs__publish", {}, WORKSPACE))
    app = PaicliApp(FakeSession(), theme="paicli-dark")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.push_screen(ApprovalScreen(request))
        await pilot.pause()
        labels = [str(b.label) for b in app.screen.query(Button) if b.id and b.id.startswith("approval-always")]
        assert labels == ["Always [a]", "Always, whole server [d]"]
        scope = str(app.screen.query_one("#approval-scope").render())
        assert "every call of the MCP tool mcp__docs__publish" in scope and "every tool of MCP server docs" in scope
        assert "page: guide" in str(app.screen.query_one("#approval-arguments").render())
