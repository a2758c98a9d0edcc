"""Every approval choice through the product's app over a real Session, tools
and ledger, with a scripted model behind the real client (P-6.5, P-9.6): what
runs, what the model reads next, what the ledger keeps."""

from __future__ import annotations

import json

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.records.ledger import read_ledger
from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
from paicli_tui.session.live import Session
from paicli_tui.ui.app import PaicliApp
from paicli_tui.ui.approval.approval import ApprovalScreen
from paicli_tui.ui.approval.permissions import PermissionsScreen
from tests.ui.test_run_screen_flow import until

pytestmark = pytest.mark.timeout(60)


def command(text: str) -> Reply:
    return Reply(tool_calls=[("execute_command", {"command": text})])


def app_over(tmp_path, *replies: Reply, mode: str = "ask") -> tuple[PaicliApp, Session, Script]:
    workspace = tmp_path / "ws"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "app.py").write_text("x = 1\n")
    script = Script({"react": list(replies)})
    settings = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0,
                        approval_mode=mode)
    session = Session(settings, workspace, transport=ScriptedTransport(script))
    app = PaicliApp(session, remember_theme=False)
    session.approver = app.approver
    return app, session, script


async def ask(pilot, text: str) -> None:
    pilot.app.main_screen.prompt.value = text
    await pilot.press("enter")


async def dialog(pilot) -> ApprovalScreen:
    await until(pilot, lambda: isinstance(pilot.app.screen, ApprovalScreen), "the approval dialog")
    return pilot.app.screen


def tool_results(script: Script) -> list[str]:
    last = script.requests[-1]
    return [m["content"] for m in last.messages if m.get("role") == "tool"]


def ledger(session: Session) -> list[dict]:
    return [line.data for line in read_ledger(session.ledger.path)]


async def test_no_with_a_reason_sends_the_reason_to_the_model(tmp_path):
    app, session, script = app_over(tmp_path, command("touch made"), Reply(content="ok, I will not"))
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await ask(pilot, "make a file")
            await dialog(pilot)
            await pilot.press("r")
            for key in "use the Makefile":
                await pilot.press("space" if key == " " else key)
            await pilot.press("enter")
            await until(pilot, lambda: not session.busy, "the end of the turn")
    finally:
        session.close()
    (result,) = tool_results(script)
    assert "the person said: use the Makefile" in result
    assert not (session.workspace / "made").exists()
    decided = [line for line in ledger(session) if line["event"] == "approval_decided"]
    assert [(d["payload"]["decision"], d["payload"]["reason"]) for d in decided] == [("no", "use the Makefile")]


async def test_edit_runs_the_edited_command_and_the_ledger_records_it(tmp_path):
    app, session, script = app_over(tmp_path, command("touch made"), Reply(content="done"))
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await ask(pilot, "make a file")
            await dialog(pilot)
            await pilot.press("e")
            editor = app.screen.query_one("#approval-editor")
            editor.text = "touch edited"
            await pilot.press("ctrl+s")
            await until(pilot, lambda: not session.busy, "the end of the turn")
    finally:
        session.close()
    assert (session.workspace / "edited").exists() and not (session.workspace / "made").exists()
    (result,) = tool_results(script)
    assert result.count("touch edited") == 1 and "the person edited this call" in result
    decided = [line for line in ledger(session) if line["event"] == "approval_decided"]
    assert decided[-1]["payload"]["decision"] == "edit"
    assert json.loads(decided[-1]["payload"]["arguments"]) == {"command": "touch edited"}


async def test_always_grants_the_command_pattern_and_a_risky_command_still_asks_in_auto(tmp_path):
    """The issue's scenario: "Always" for the tests in ASK, then AUTO, then rm -rf."""
    app, session, script = app_over(
        tmp_path, command("python -m pytest -q --co"), Reply(content="tests listed"),
        command("python -m pytest -q --co -k nothing"), Reply(content="again"),
        command("rm -rf src"), Reply(content="not deleted"))
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await ask(pilot, "run the tests")
            screen = await dialog(pilot)
            assert "commands that start with `python -m pytest`" in str(screen.query_one("#approval-scope").render())
            await pilot.press("a")
            await until(pilot, lambda: not session.busy, "the first turn")
            await ask(pilot, "and again")  # inside the grant: no dialog
            await until(pilot, lambda: not session.busy, "the second turn")
            await pilot.press("shift+tab")  # ask → auto
            assert session.approval_mode == "auto"
            await ask(pilot, "now clean up")
            screen = await dialog(pilot)
            assert screen.request.risky and screen.request.grants == ()
            assert not screen.query("#approval-always-0")  # no Always for a risky command
            await pilot.press("n")
            await until(pilot, lambda: not session.busy, "the third turn")
    finally:
        session.close()
    assert (session.workspace / "src" / "app.py").exists()
    requested = [line["payload"]["arguments"] for line in ledger(session) if line["event"] == "approval_requested"]
    assert [json.loads(a)["command"] for a in requested] == ["python -m pytest -q --co", "rm -rf src"]
    granted = [line["payload"]["rule"] for line in ledger(session) if line["event"] == "grant_added"]
    assert granted == ["command: python -m pytest"]


async def test_permissions_lists_and_revokes_a_grant(tmp_path):
    app, session, script = app_over(tmp_path, command("python -m pytest -q --co"), Reply(content="ok"),
                                    command("python -m pytest -q --co"), Reply(content="ok"))
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await ask(pilot, "run the tests")
            await dialog(pilot)
            await pilot.press("a")
            await until(pilot, lambda: not session.busy, "the first turn")
            await ask(pilot, "/permissions")
            await until(pilot, lambda: isinstance(app.screen, PermissionsScreen), "the permissions list")
            await pilot.press("r")
            await pilot.press("escape")
            assert session.grants.session_grants == ()
            await ask(pilot, "again")
            await dialog(pilot)  # revoked: asked again
            await pilot.press("y")
            await until(pilot, lambda: not session.busy, "the second turn")
    finally:
        session.close()
    events = [line["event"] for line in ledger(session)]
    assert "grant_revoked" in events
