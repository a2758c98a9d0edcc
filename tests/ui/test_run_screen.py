"""The run screen (P-7.3, P-4.7, P-7.6) fed real events through the real
bus and pump: panes side by side, live tree, one write per pane per frame,
bounded panes that keep their place, cancel with confirmation, the summary."""

from __future__ import annotations

from rich.cells import cell_len

from paicli_tui import events as ev
from paicli_tui.ui.run.run_screen import RunScreen, grid_shape
from paicli_tui.ui.common.task_tree import GLYPHS
from paicli_tui.ui.run.worker_pane import LineBuffer, WorkerPane, wrap
from tests.ui.run_host import HostApp, HostSession, screen_text, shown_text, survey_plan

WORKERS = ["worker-1", "worker-2"]


async def open_run(app, pilot, workers=WORKERS, **kwargs) -> RunScreen:
    screen = RunScreen(
        survey_plan("step"),
        "Survey the project",
        workers,
        kind="team",
        on_cancel=app.session.cancel,
        clock=lambda: 100.0,
        tick=False,
        **kwargs,
    )
    await app.push_screen(screen)
    await pilot.pause()
    return screen


async def frame(app, pilot) -> None:
    await app.drain_events()
    await pilot.pause()


def start(bus, step: str, worker: str) -> None:
    bus.publish(ev.TaskDispatched(step, step, worker))
    bus.publish(ev.TaskStatusChanged(step, step, "RUNNING"))


async def test_two_workers_stream_side_by_side_with_titles_and_live_tree():
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot)
        bus = app.bus
        start(bus, "step_1", "worker-1")
        start(bus, "step_2", "worker-2")
        bus.publish(ev.ModelDelta("worker-1", "c1", "reasoning", "look at the README"))
        bus.publish(ev.ModelDelta("worker-2", "c2", "content", "listing files"))
        bus.publish(ev.ModelDelta("worker-1", "c1", "content", "The README says hi"))
        await frame(app, pilot)
        one, two = screen.pane("worker-1"), screen.pane("worker-2")
        assert one.lines[1:] == [("reasoning", "look at the README"), ("content", "The README says hi")]
        assert two.lines[1:] == [("content", "listing files")]
        assert one.region.x != two.region.x and one.region.y == two.region.y  # side by side
        shown = screen_text(app)
        assert "worker-1 · step_1 · attempt 1" in shown and "worker-2 · step_2 · attempt 1" in shown
        assert screen.task_tree.label_text("step_1").startswith(f"{GLYPHS['RUNNING']} step_1 worker-1")
        bus.publish(ev.TaskStatusChanged("step_1", "step_1", "COMPLETED", result="ok"))
        await frame(app, pilot)
        assert screen.task_tree.label_text("step_1").startswith(GLYPHS["COMPLETED"])
        assert str(one.border_title) == "worker-1 · step_1 · attempt 1 · completed"


async def test_each_pane_gets_one_write_per_frame(monkeypatch):
    writes: list[str] = []
    original = WorkerPane.append

    def counting(self, segments):
        writes.append(self.worker)
        original(self, segments)

    monkeypatch.setattr(WorkerPane, "append", counting)
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot)
        start(app.bus, "step_1", "worker-1")
        start(app.bus, "step_2", "worker-2")
        for i in range(500):
            app.bus.publish(ev.ModelDelta("worker-1", "c1", "content", f"a{i} "))
            app.bus.publish(ev.ModelDelta("worker-2", "c2", "reasoning", f"b{i} "))
            if i % 100 == 0:
                app.bus.publish(ev.ToolCallStarted("worker-1", f"t{i}", "read_file", '{"path": "x"}'))
        await frame(app, pilot)
        assert sorted(writes) == ["worker-1", "worker-2"]
        assert screen.pane("worker-2").text.endswith("b499 ")


async def test_the_narrow_layout_stacks_two_panes_and_keeps_a_grid_for_four():
    assert grid_shape(2, narrow=True) == (1, 2)
    assert grid_shape(4, narrow=True) == (2, 2)
    assert grid_shape(2, narrow=False) == (2, 1)
    assert grid_shape(4, narrow=False) == (2, 2)
    app = HostApp()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(app, pilot)
        start(app.bus, "step_1", "worker-1")
        start(app.bus, "step_2", "worker-2")
        await frame(app, pilot)
        one, two = screen.pane("worker-1"), screen.pane("worker-2")
        assert screen.has_class("-narrow")
        assert one.region.x == two.region.x and one.region.y < two.region.y  # stacked
        assert one.region.height >= 5 and two.region.height >= 5
        shown = screen_text(app)
        assert "worker-1 · step_1" in shown and "worker-2 · step_2" in shown


async def test_a_pane_is_bounded_and_keeps_its_place_when_scrolled_up():
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, max_lines=100)
        start(app.bus, "step_1", "worker-1")
        app.bus.publish(ev.ModelDelta("worker-1", "c1", "content", "".join(f"line {i}\n" for i in range(300))))
        await frame(app, pilot)
        pane = screen.pane("worker-1")
        assert len(pane.lines) == 100 and pane.lines[-1] == ("content", "line 299")
        assert pane.scroll_y == pane.max_scroll_y  # following the end
        pane.scroll_to(y=50, animate=False, immediate=True)
        reading = pane.rows[int(pane.scroll_y)]
        app.bus.publish(ev.ModelDelta("worker-1", "c1", "content", "".join(f"more {i}\n" for i in range(20))))
        await frame(app, pilot)
        assert len(pane.lines) == 100
        assert pane.rows[int(pane.scroll_y)] == reading  # same text under the eye
        pane.scroll_end(animate=False, immediate=True)
        app.bus.publish(ev.ModelDelta("worker-1", "c1", "content", "last\n"))
        await frame(app, pilot)
        assert pane.scroll_y == pane.max_scroll_y


async def test_escape_asks_before_cancelling_and_the_summary_ends_the_run():
    session = HostSession()
    app = HostApp(session)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot)
        start(app.bus, "step_1", "worker-1")
        await frame(app, pilot)
        await pilot.press("escape")
        assert "Cancel the run?" in screen_text(app)
        await pilot.press("n")
        assert session.cancelled == 0 and app.screen is screen
        await pilot.press("escape", "y")
        await pilot.pause()
        assert session.cancelled == 1 and screen.cancelling
        assert "Cancelling…" in screen_text(app)
        summary = "Plan CANCELLED: 4 tasks — 4 skipped\n⏭️ step_1: Read the README — skipped: cancelled"
        app.bus.publish(ev.TaskStatusChanged("step_1", "step_1", "SKIPPED", error="cancelled"))
        app.bus.publish(ev.RunFinished("orchestrator", "CANCELLED", summary, {"skipped": 4}))
        await frame(app, pilot)
        shown = screen_text(app)
        assert "Run CANCELLED" in shown and "⏭️ step_1: Read the README — skipped: cancelled" in shown
        assert "[Enter/Esc/q] back to the conversation" in shown
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is not screen


def test_incremental_wrapping_matches_wrapping_the_whole_line():
    text = "the quick brown fox jumps over the lazy dog; 漢字も折り返す supercalifragilisticexpialidocious " * 5
    buffer = LineBuffer(width=17)
    for start in range(0, len(text), 7):
        buffer.append([("content", text[start : start + 7])])
    assert [row for _, row in buffer.rows] == wrap(text, 17)
    assert "".join(row for _, row in buffer.rows) == text
    assert all(cell_len(row.rstrip(" ")) <= 17 for _, row in buffer.rows)
    buffer.append([("content", "\n"), ("reasoning", "next\n\nafter a blank")])
    assert [(kind, text) for kind, text in buffer.lines[1:]] == [
        ("reasoning", "next"),
        ("reasoning", ""),
        ("reasoning", "after a blank"),
    ]


async def test_retry_and_verdict_render_in_the_step_pane_shown_on_screen():
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        await open_run(app, pilot)
        start(app.bus, "step_2", "worker-2")
        app.bus.publish(ev.ReviewStarted("reviewer", "step_2", 1))
        app.bus.publish(ev.ReviewVerdictGiven("reviewer", "step_2", 1, False, "- count hidden files"))
        app.bus.publish(ev.StepRetry("worker-2", "step_2", 2, "- count hidden files"))
        await frame(app, pilot)
        shown = await shown_text(app, pilot)
        assert "✗ rejected by reviewer: - count" in shown
        assert "↻ retry step_2 · attempt 2" in shown
        assert "worker-2 · step_2 · attempt 2" in shown
