"""How the approval dialog looks for a command (safe, with its scoped
Always; risky, with none), a long diff whose buttons stay on screen, and the
/permissions list, at 120×36 and 80×24. Regenerate with --snapshot-update
after a deliberate change, and look at the SVGs before committing."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from paicli_tui.policy.approval import ApprovalRequest
from paicli_tui.policy.grants import Grant, GrantStore, command_grant, parse_rule
from paicli_tui.ui.app import PaicliApp
from paicli_tui.ui.approval.approval import ApprovalScreen
from paicli_tui.ui.approval.permissions import PermissionsScreen
from tests.ui.conftest import settle, submit
from tests.ui.fake_session import WORKSPACE, FakeSession

SIZES = {"wide": (120, 36), "narrow": (80, 24)}


def _app() -> PaicliApp:
    return PaicliApp(FakeSession(), theme="paicli-dark")


async def _show(pilot, request: ApprovalRequest) -> None:
    ThreadPoolExecutor(max_workers=1).submit(pilot.app.approver.request, request)
    while not isinstance(pilot.app.screen, ApprovalScreen):
        await settle(pilot)
        await asyncio.sleep(0.01)
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()


async def _safe_command(pilot) -> None:
    command = "python -m pytest -q tests/test_invoices.py"
    await _show(pilot, ApprovalRequest(
        "task_2", "execute_command", {"command": command}, "ASK mode: every command waits for your yes",
        preview=command, grants=(command_grant(command),), workdir=str(WORKSPACE), task="run the invoice tests"))


async def _risky_command(pilot) -> None:
    await _show(pilot, ApprovalRequest(
        "react", "execute_command", {"command": "rm -rf invoicer"},
        "risky: recursive delete of invoicer (not a build or cache directory)", preview="rm -rf invoicer",
        risky=True, workdir=str(WORKSPACE)))


async def _long_diff(pilot) -> None:
    lines = "".join(f"+line {n}\n" for n in range(1, 121))
    preview = f"--- a/notes.md\n+++ b/notes.md\n@@ -0,0 +1,120 @@\n{lines}"
    grants = (Grant("file", "notes.md"), Grant("directory", "./"))
    await _show(pilot, ApprovalRequest(
        "react", "write_file", {"path": "notes.md", "content": "…"}, "ASK mode: every file change waits for your yes",
        preview=preview, grants=grants))


async def _permissions(pilot) -> None:
    session = pilot.app.session
    session.grants = GrantStore(WORKSPACE, allow=[parse_rule("command: npm test")],
                                deny=[parse_rule("command: git push")], saved=[parse_rule("path: docs/", "workspace")])
    session.grants.add(command_grant("python -m pytest -q"))
    session.grants.add(Grant("file", "src/app.py"))
    await submit(pilot, "/permissions")
    while not isinstance(pilot.app.screen, PermissionsScreen):
        await settle(pilot)
        await asyncio.sleep(0.01)
    await pilot.pause()


SCENES = {"safe_command": _safe_command, "risky_command": _risky_command, "long_diff": _long_diff,
          "permissions": _permissions}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("scene", SCENES)
def test_approval_screens(snap_compare, scene, size):
    assert snap_compare(_app(), terminal_size=SIZES[size], run_before=SCENES[scene])
