"""The approval dialog offers the network for one run and keeps it off on a
plain yes; /permissions lists network rules. A real app, session and
sandbox; a loopback server records what reaches it."""

from __future__ import annotations

import pytest

from paicli_tui.config.settings import Permissions, Settings
from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
from paicli_tui.session.live import Session
from paicli_tui.ui.app import PaicliApp
from paicli_tui.ui.approval.permissions import PermissionsScreen
from tests.support.sandbox import collector, require_sandbox
from tests.ui.test_approval_flows import ask, command, dialog
from tests.ui.test_run_screen_flow import until

pytestmark = pytest.mark.timeout(60)
FETCH = "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)"


def app_over(tmp_path, *replies: Reply, allow: list[str] = ()) -> tuple[PaicliApp, Session]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "fetch.py").write_text(FETCH + "\n")
    settings = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0,
                        approval_mode="ask", permissions=Permissions(allow=list(allow)))
    session = Session(settings, workspace, transport=ScriptedTransport(Script({"react": list(replies)})))
    app = PaicliApp(session, remember_theme=False)
    session.approver = app.approver
    return app, session


async def test_with_network_reaches_the_server_and_a_plain_yes_does_not(tmp_path):
    require_sandbox()
    with collector() as seen:
        app, session = app_over(tmp_path, command(f"python3 fetch.py {seen.url}/online"), Reply(content="ok"),
                                command(f"python3 fetch.py {seen.url}/offline"), Reply(content="ok"))
        try:
            async with app.run_test(size=(120, 36)) as pilot:
                await ask(pilot, "fetch it")
                screen = await dialog(pilot)
                assert screen.query_one("#approval-network")  # the choice is on screen
                await pilot.press("w")
                await until(pilot, lambda: not session.busy, "the first turn")
                await ask(pilot, "again")
                await dialog(pilot)
                await pilot.press("y")
                await until(pilot, lambda: not session.busy, "the second turn")
        finally:
            session.close()
        assert seen.requests == ["GET /online "]


async def test_permissions_lists_network_rules(tmp_path):
    app, session = app_over(tmp_path, allow=["network: allow host: pypi.org", "network: allow command: npm ci"])
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await ask(pilot, "/permissions")
            await until(pilot, lambda: isinstance(app.screen, PermissionsScreen), "the permissions list")
            options = app.screen.query_one("#permissions-list")
            shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
    finally:
        session.close()
    assert any("network for commands starting `npm ci`" in line and "network: allow command: npm ci" in line
               for line in shown)
    assert any("pypi.org" in line and "network: allow host: pypi.org" in line for line in shown)
