"""A task's check as its own card in the worker pane: failed (✗, the exit
code, the command, its output folded; a click opens it) and then passed on
the retry, plus the ⚠ no tool calls flag. The bus and the screen share one
fake clock, so the times shown are stable."""

from __future__ import annotations

from paicli_tui import events as ev
from paicli_tui.ui.run.pane_entries import CheckCard
from paicli_tui.ui.run.run_screen import RunScreen
from paicli_tui.ui.run.worker_pane import WorkerPane
from tests.ui.run_host import HostApp, HostSession, make_plan

NOW = [100.0]
CHECK = "python -m pytest -q tests/test_notes.py"
FAILED_OUTPUT = "F\n=== FAILURES ===\nE   FileNotFoundError: notes.md\n1 failed in 0.04s"


def clock() -> float:
    return NOW[0]


def host() -> HostApp:
    return HostApp(HostSession(1, clock=clock))


async def failed_then(pilot, passed: bool) -> RunScreen:
    NOW[0] = 100.0
    app = pilot.app
    plan = make_plan([{"id": "a", "description": "Write notes.md", "type": "FILE_WRITE", "check": CHECK}], "task",
                     goal="Write the notes")
    screen = RunScreen(plan, plan.goal, ["worker-1"], kind="plan", clock=clock, tick=False)
    await app.push_screen(screen)
    await pilot.pause()
    publish = app.bus.publish
    publish(ev.RunStarted("executor", "ready", 1, ("worker-1",), 0, 1, plan.to_dict()))
    publish(ev.TaskDispatched("task_1", "task_1", "worker-1", 1))
    publish(ev.TaskStatusChanged("task_1", "task_1", "RUNNING"))
    NOW[0] = 102.0
    publish(ev.CheckRan("task_1", "task_1", 1, CHECK, 1, 0.8, False, "0" * 64, FAILED_OUTPUT))
    publish(ev.ReceiptsSent("task_1", "task_1", 1, "", 0, (), "failed", 0, ("no tool calls",)))
    publish(ev.StepRetry("task_1", "task_1", 2, f"check: check FAILED: `{CHECK}` → exit 1 in 0.8 s"))
    publish(ev.TaskDispatched("task_1", "task_1", "worker-1", 2))
    if passed:
        publish(ev.ToolCallStarted("task_1", "c1", "write_file", '{"path": "notes.md", "content": "notes"}'))
        publish(ev.ToolCallFinished("task_1", "c1", "write_file", True, "wrote notes.md", "ok"))
        NOW[0] = 104.0
        publish(ev.CheckRan("task_1", "task_1", 2, CHECK, 0, 0.6, True, "1" * 64, "1 passed in 0.03s"))
    await app.drain_events()
    await pilot.pause()
    return screen


def test_a_failed_check_card_with_its_retry(snap_compare):
    async def run_before(pilot):
        await failed_then(pilot, passed=False)

    assert snap_compare(host(), terminal_size=(120, 36), run_before=run_before)


def test_a_passed_check_card_after_the_retry_with_the_failed_output_opened(snap_compare):
    async def run_before(pilot):
        screen = await failed_then(pilot, passed=True)
        pane = screen.query_one(WorkerPane)
        failed = next(entry for entry in pane.entries if isinstance(entry, CheckCard))
        row = pane.rows_of(failed).start - round(pane.scroll_y)
        await pilot.click(pane, offset=(3, 1 + row))
        await pilot.pause()

    assert snap_compare(host(), terminal_size=(120, 36), run_before=run_before)


async def test_the_cards_say_what_the_check_did():
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await failed_then(pilot, passed=True)
        pane = screen.query_one(WorkerPane)
        cards = [entry for entry in pane.entries if isinstance(entry, CheckCard)]
        assert [card.plain.splitlines()[0] for card in cards] == [
            "✗ check failed · exit 1 · 0.8 s", "✓ check passed · exit 0 · 0.6 s"]
        text = pane.text
        assert "⚠ no tool calls" in text and "after its check failed" in text
        drawn = pane.rendered_text()
        assert "▸ output · 4 lines (click or o to show)" in drawn and "FileNotFoundError" not in drawn
        row = pane.rows_of(cards[0]).start - round(pane.scroll_y)
        await pilot.click(pane, offset=(3, 1 + row))  # opens that card's output, not the other's
        await pilot.pause()
        drawn = pane.rendered_text()
        assert "FileNotFoundError: notes.md" in drawn and "1 passed in 0.03s" not in drawn
        await pilot.press("o")
        await pilot.pause()
        drawn = pane.rendered_text()
        assert "FileNotFoundError" not in drawn and "1 passed in 0.03s" in drawn


async def test_a_plan_tasks_details_show_its_receipts_and_checks():
    from paicli_tui.ui.run.task_details import TaskDetailsScreen
    from tests.ui.run_host import screen_text

    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await failed_then(pilot, passed=True)
        app.bus.publish(ev.ReceiptsSent("task_1", "task_1", 2, "", 1, ("exit 0 · ls",), "passed", 0, ()))
        await app.drain_events()
        screen.open_details("task_1")
        await pilot.pause()
        assert isinstance(app.screen, TaskDetailsScreen)
        shown = screen_text(app)
        assert "0 tool calls · ⚠ no tool calls" in shown
        assert f"✗ check failed · exit 1 · 0.8 s · $ {CHECK}" in shown and "FileNotFoundError: notes.md" in shown
        assert f"✓ check passed · exit 0 · 0.6 s · $ {CHECK}" in shown
        assert "1 tool call" in shown and "$ exit 0 · ls" in shown
