"""Modes (P-6.5) and the approval dialog (P-7.4)."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from textual.widgets import Button

from paicli_tui.policy.approval import ApprovalAnswer, ApprovalRequest, Decision, as_answer
from paicli_tui.policy.grants import command_grant
from paicli_tui.ui.bridge.approver import UiApprover
from paicli_tui.ui.approval.approval import ApprovalScreen, colour_diff
from tests.support.timing import scaled
from tests.ui.conftest import settle, submit, text_of

SIZE = (120, 36)

DIFF = """--- a/notes.txt
+++ b/notes.txt
@@ -1,2 +1,2 @@
 keep
-old line
+new line
"""


GRANT = command_grant("make")


def _ask(app, tool: str = "execute_command", **arguments):
    """Ask for approval on an engine-like thread; returns the pending answer."""
    request = ApprovalRequest("react", tool, arguments or {"command": "make"}, "ASK mode: every command waits",
                              grants=(GRANT,), workdir="/work/project")
    pool = ThreadPoolExecutor(max_workers=1)
    return pool.submit(app.approver.request, request)


def decision_of(answer) -> Decision:
    return as_answer(answer.result(timeout=scaled(5))).decision


async def _wait_for_dialog(pilot) -> ApprovalScreen:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ApprovalScreen), f"no dialog: {screen!r}"
    return screen


async def test_shift_tab_cycles_auto_plan_ask_and_updates_the_status_bar(app, session):
    async with app.run_test(size=SIZE) as pilot:
        assert text_of(app, "#status-mode") == "AUTO"
        assert text_of(app, "#status-hint") == "shift+tab to cycle"
        seen = []
        for _ in range(3):
            await pilot.press("shift+tab")
            seen.append((session.approval_mode, text_of(app, "#status-mode")))
        assert seen == [("plan", "PLAN"), ("ask", "ASK"), ("auto", "AUTO")]
        assert app.focused is app.main_screen.prompt  # focus did not move


async def test_mode_command_sets_the_mode(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/mode ask")
        await settle(pilot)
        assert session.approval_mode == "ask"
        assert text_of(app, "#status-mode") == "ASK"
        assert app.main_screen.status.has_class("-mode-ask")
        await submit(pilot, "/mode sideways")
        await settle(pilot)
        assert session.approval_mode == "ask"
        assert session.submitted == []


async def test_a_mode_change_from_the_engine_reaches_the_status_bar(app, session):
    async with app.run_test(size=SIZE) as pilot:
        threading.Thread(target=setattr, args=(session, "approval_mode", "plan")).start()
        await settle(pilot)
        assert text_of(app, "#status-mode") == "PLAN"


@pytest.mark.parametrize(("key", "decision"), [("y", Decision.YES), ("n", Decision.NO),
                                               ("a", Decision.ALWAYS), ("escape", Decision.NO)])
async def test_dialog_keys_answer_the_waiting_thread(app, key, decision):
    async with app.run_test(size=SIZE) as pilot:
        answer = _ask(app)
        await _wait_for_dialog(pilot)
        assert not answer.done()
        await pilot.press(key)
        assert decision_of(answer) is decision
        await pilot.pause()
        assert app.screen is app.main_screen


async def test_dialog_buttons_answer_and_show_their_key_hints(app):
    async with app.run_test(size=SIZE) as pilot:
        answer = _ask(app)
        screen = await _wait_for_dialog(pilot)
        labels = [str(button.label) for button in screen.query(Button) if button.display]
        assert labels == ["Yes [y]", "Always [a]", "No [n]", "No, tell why [r]", "Edit [e]"]
        scope = str(screen.query_one("#approval-scope").render())
        assert scope == ("[a] allows from now on: commands that start with `make`, not with -C, --directory, -f, "
                         "--file, --makefile, …")
        rendered = [str(button.render()) for button in screen.query(Button)]
        assert any("[a]" in text for text in rendered)
        await pilot.click("#approval-always-0")
        assert answer.result(timeout=scaled(5)) == ApprovalAnswer(Decision.ALWAYS, grant=GRANT)


async def test_the_dialog_shows_the_command_in_full_and_shift_tab_does_not_cycle(app, session):
    command = "find . -name '*.pyc' -delete && " + "x" * 150
    async with app.run_test(size=SIZE) as pilot:
        answer = _ask(app, command=command)
        screen = await _wait_for_dialog(pilot)
        assert command in str(screen.query_one("#approval-arguments").render())
        await pilot.press("shift+tab")
        assert session.approval_mode == "auto"
        await pilot.press("n")
        assert decision_of(answer) is Decision.NO


async def test_write_previews_show_a_coloured_diff(app):
    async with app.run_test(size=SIZE) as pilot:
        request = ApprovalRequest("react", "write_file", {"path": "notes.txt", "content": "keep\nnew line\n"},
                                  "writes a file", preview=DIFF)
        pending = ThreadPoolExecutor(max_workers=1).submit(app.approver.request, request)
        screen = await _wait_for_dialog(pilot)
        preview = str(screen.query_one("#approval-preview").render())
        assert "+new line" in preview and "+++ b/notes.txt" not in preview  # the diff once, the path in the title
        assert preview.count("new line") == 1 and "notes.txt" in str(screen.query_one("#approval-title").render())
        assert "  2 │ +new line" in preview and "2   │ -old line" in preview  # old and new line numbers
        await pilot.press("y")
        assert decision_of(pending) is Decision.YES
    coloured = colour_diff(DIFF)
    styles = {str(span.style) for span in coloured.spans}
    assert {"$diff-added", "$diff-removed"} <= styles


async def test_queued_requests_appear_one_after_another(app):
    async with app.run_test(size=SIZE) as pilot:
        first = _ask(app, command="make one")
        await _wait_for_dialog(pilot)
        second = _ask(app, command="make two")
        await settle(pilot)
        screen = app.screen
        assert "make one" in str(screen.query_one("#approval-arguments").render())
        await pilot.press("y")
        assert decision_of(first) is Decision.YES
        screen = await _wait_for_dialog(pilot)
        assert "make two" in str(screen.query_one("#approval-arguments").render())
        assert not second.done()
        await pilot.press("n")
        assert decision_of(second) is Decision.NO


async def test_several_requests_at_once_say_how_many_wait(app):
    async with app.run_test(size=SIZE) as pilot:
        async with app._paint_lock:  # all three are queued before the next frame
            answers = [_ask(app, command=f"job {i}") for i in range(3)]
            while len(app.pump) < 3:
                await asyncio.sleep(0.01)
        await settle(pilot)
        assert "more waiting" in str(app.screen.query_one("#approval-queued").render())
        for _ in answers:
            await _wait_for_dialog(pilot)
            await pilot.press("y")
        assert [decision_of(a) for a in answers] == [Decision.YES] * 3


def test_closing_the_approver_denies_waiting_requests():
    approver = UiApprover()
    pending = ThreadPoolExecutor(max_workers=1).submit(
        approver.request, ApprovalRequest("react", "write_file", {"path": "a"}, "writes")
    )
    while not approver.pump:  # the request reached the queue
        pass
    approver.close()
    assert pending.result(timeout=scaled(5)) is Decision.NO
    assert approver.request(ApprovalRequest("react", "x", {}, "")) is Decision.NO
