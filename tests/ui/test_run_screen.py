"""The run screen (P-7.3, P-4.7, P-7.6) fed real events through the real
bus and pump: rendered panes with cards, one write per pane per frame, the
layout at each size, tails that stay in view, and every run-screen key."""

from __future__ import annotations


from paicli_tui import events as ev
from paicli_tui.ui.run.pane_entries import ReportCard, ThoughtBlock, ToolEntry, VerdictCard
from paicli_tui.ui.run.run_screen import RunScreen
from paicli_tui.ui.run.run_summary import RunSummary
from paicli_tui.ui.run.run_tree import OUTCOME_GLYPHS
from paicli_tui.ui.run.task_details import TaskDetailsScreen
from paicli_tui.ui.run.timeline import RunTimeline
from paicli_tui.ui.run.worker_pane import WorkerPane
from paicli_tui.ui.run.worker_strip import WorkerStrip
from tests.ui.run_host import HostApp, HostSession, screen_text, shown_text, survey_plan
from tests.ui.test_run_screen_flow import until

WORKERS = ["worker-1", "worker-2"]
NOW = [100.0]


def clock() -> float:
    return NOW[0]


def host(workers: int = 2, **kwargs) -> HostApp:
    NOW[0] = 100.0
    return HostApp(HostSession(workers, clock=clock, **kwargs))


async def open_run(app, pilot, workers=WORKERS, **kwargs) -> RunScreen:
    screen = RunScreen(
        survey_plan("step"), "Survey the project", workers, kind="team", on_cancel=app.session.cancel,
        clock=clock, tick=False, **kwargs,
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


def report(bus, worker: str, step: str, result: str) -> None:
    raw = f'{{"status": "completed", "result": {result!r}}}'.replace("'", '"')
    bus.publish(ev.ModelDelta(worker, "c-report", "content", raw))
    bus.publish(ev.ModelResponse(worker, "c-report", raw, "", (), "stop", 10, 5, 0, 0.1))
    bus.publish(ev.WorkerReportParsed(worker, step, 1, "completed", result))


def finish(bus, status: str = "COMPLETED") -> None:
    for step in ("step_1", "step_2", "step_3", "step_4"):
        bus.publish(ev.TaskStatusChanged(step, step, status if status == "COMPLETED" else "SKIPPED", result="ok"))
    bus.publish(ev.RunFinished("orchestrator", status, f"Team run {status}: 4 steps", {}))


async def test_panes_render_markdown_thoughts_tool_lines_and_cards_with_no_raw_json():
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot)
        bus = app.bus
        start(bus, "step_1", "worker-1")
        start(bus, "step_2", "worker-2")
        bus.publish(ev.ModelDelta("worker-1", "c1", "reasoning", "look at the README"))
        bus.publish(ev.ModelResponse("worker-1", "c1", "", "look at the README", (), "tool_calls", 9, 1, 0, 0.1))
        bus.publish(ev.ToolCallStarted("worker-1", "t1", "read_file", '{"path": "README.md"}'))
        bus.publish(ev.ToolCallFinished("worker-1", "t1", "read_file", True, "read 2 lines", "# Demo\nhi"))
        bus.publish(ev.ModelDelta("worker-2", "c2", "content", "Found **two** files:\n\n- `src/main.py`\n"))
        report(bus, "worker-1", "step_1", "- the README is **short**")
        await frame(app, pilot)
        one, two = screen.pane("worker-1"), screen.pane("worker-2")
        assert one.region.x != two.region.x and one.region.y == two.region.y  # side by side
        assert [type(e).__name__ for e in one.entries] == ["StepHeading", "ThoughtBlock", "ToolEntry", "StructuredBlock", "ReportCard"]
        [answer] = [entry for entry in two.entries if type(entry).__name__ == "AnswerBlock"]
        assert not two.children  # painted as lines: no widget per entry or Markdown block
        rows = two.rendered_text().splitlines()
        assert rows[rows.index("Found two files:"):][:3] == ["Found two files:", "", "• src/main.py"]
        shown = await shown_text(app, pilot)
        assert "Found two files:" in shown and "**" not in shown and "`" not in shown  # rendered, not raw
        assert "→ read_file README.md · ✓ read 2 lines" in shown
        assert "✓ report · completed" in shown and "the README is short" in shown
        assert '{"status"' not in shown and "report (completed)" not in shown  # no JSON, no duplicate line
        assert "worker-1 · step_1 · attempt 1" in shown and "worker-2 · step_2 · attempt 1" in shown
        assert screen.task_tree.label_text("step_1").startswith(f"{OUTCOME_GLYPHS['running']} step_1 0.0s w1")


async def test_each_pane_gets_one_write_per_frame(monkeypatch):
    writes: list[str] = []
    original = WorkerPane.write

    async def counting(self, frame_ops):
        writes.append(self.worker)
        await original(self, frame_ops)

    monkeypatch.setattr(WorkerPane, "write", counting)
    app = host()
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
        assert screen.pane("worker-1").text.endswith("a499 ")


async def test_at_80_columns_one_worker_is_shown_large_and_the_others_as_live_rows():
    app = host()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(app, pilot)
        start(app.bus, "step_1", "worker-1")
        start(app.bus, "step_2", "worker-2")
        app.bus.publish(ev.ModelDelta("worker-2", "c2", "content", "listing the files now"))
        await frame(app, pilot)
        one, two = screen.pane("worker-1"), screen.pane("worker-2")
        assert screen.layout_now.mode == "focus" and one.display and not two.display
        assert one.region.width >= 40
        strip = screen.query_one(WorkerStrip)
        assert strip.names == ("worker-2",)
        assert strip.row("worker-2").plain == "▸ worker-2 · step_2 running · 0.0s · listing the files now"
        assert "▸ worker-2 · step_2 running · 0.0s · listing the file" in screen_text(app)
        await pilot.press("right_square_bracket")
        assert two.display and not one.display and strip.names == ("worker-1",)
        assert screen.focused is two
        await pilot.press("left_square_bracket")
        assert one.display


async def test_with_more_workers_than_columns_the_grid_stays_at_least_forty_wide():
    app = host(4)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_run(app, pilot, workers=[f"worker-{i}" for i in range(1, 5)])
        panes = screen.panes
        assert screen.layout_now.mode == "grid" and (screen.layout_now.columns, screen.layout_now.rows) == (2, 2)
        assert all(p.display and p.region.width >= 40 for p in panes)
    app = host(3)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, workers=["worker-1", "worker-2", "worker-3"])
        one, two, three = screen.panes
        assert (screen.layout_now.columns, screen.layout_now.rows) == (2, 2)
        assert one.region.width >= 40 and three.region.width == one.region.width + two.region.width  # spans the row


async def test_a_pane_is_bounded_and_keeps_its_place_when_scrolled_up():
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, max_entries=60)
        start(app.bus, "step_1", "worker-1")
        for i in range(80):
            app.bus.publish(ev.AgentNote("worker-1", f"note {i}"))
        await frame(app, pilot)
        pane = screen.pane("worker-1")
        assert len(pane.entries) == 60 and pane.entries[-1].plain == "note 79"
        assert pane.following and pane.scroll_y == pane.max_scroll_y
        pane.scroll_to(y=10, animate=False, immediate=True)
        await pilot.pause()
        assert not pane.following
        reading = next(e for e in pane.entries if pane.rows_of(e).start >= pane.scroll_y + 1)
        where = pane.rows_of(reading).start - pane.scroll_y
        for i in range(5):
            app.bus.publish(ev.AgentNote("worker-1", f"more {i}"))
        await frame(app, pilot)
        assert len(pane.entries) == 60
        assert reading in pane.entries and pane.rows_of(reading).start - pane.scroll_y == where  # still under the eye
        pane.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert pane.following


async def test_the_tail_of_every_pane_stays_in_view_after_the_summary_appears():
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot)
        for step, worker in (("step_1", "worker-1"), ("step_2", "worker-2")):
            start(app.bus, step, worker)
            app.bus.publish(ev.ModelDelta(worker, "c", "content", "".join(f"paragraph {i}\n\n" for i in range(60))))
        await frame(app, pilot)
        finish(app.bus)
        await frame(app, pilot)
        await pilot.pause()
        summary = screen.query_one(RunSummary)
        assert summary.display and summary.region.height >= 5
        for pane in screen.panes:
            last = pane.entries[-1]
            assert "completed" in last.plain
            rows = pane.rows_of(last)
            seen = range(round(pane.scroll_y), round(pane.scroll_y) + pane.scrollable_content_region.height)
            assert rows.start in seen and rows.stop - 1 in seen, f"{pane.worker}'s tail is hidden"
        # Panes paint at most 30 times a second: wait for the paint, not a fixed number of frames.
        await until(pilot, lambda: all(f"■ {step} completed" in screen_text(app) for step in ("step_1", "step_2")),
                    "both panes' last lines on screen")


async def test_escape_asks_before_cancelling_and_escape_leaves_the_finished_run():
    app = host()
    session = app.session
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
        app.bus.publish(ev.ModelError("worker-1", "c1", "cancelled", "cancelled"))
        app.bus.publish(ev.TaskStatusChanged("step_1", "step_1", "SKIPPED", error="cancelled"))
        for step in ("step_2", "step_3", "step_4"):
            app.bus.publish(ev.TaskStatusChanged(step, step, "SKIPPED", error="cancelled"))
        summary = "Plan CANCELLED: 4 tasks — 4 skipped\n⏭️ step_1: Read the README — skipped: cancelled"
        app.bus.publish(ev.RunFinished("orchestrator", "CANCELLED", summary, {"skipped": 4}))
        await frame(app, pilot)
        shown = screen_text(app)
        assert "Run CANCELLED" in shown and "⏭" not in shown
        assert "⊗ step_1 cancelled" in shown and "⊘ step_2 skipped" in shown
        assert "model call failed" not in shown and "■ step_1 cancelled" in shown
        assert "[Esc/q] back" in shown
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is not screen


async def test_enter_on_the_tree_opens_the_task_details_and_escape_closes_them():
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot)
        start(app.bus, "step_2", "worker-2")
        report(app.bus, "worker-2", "step_2", "src/main.py")
        app.bus.publish(ev.ReviewStarted("reviewer-step_2", "step_2", 1))
        app.bus.publish(ev.ReviewVerdictGiven("reviewer-step_2", "step_2", 1, False, "- list the tests folder too"))
        app.bus.publish(ev.StepRetry("worker-2", "step_2", 2, "- list the tests folder too"))
        app.bus.publish(ev.TaskDispatched("step_2", "step_2", "worker-2", 2))
        NOW[0] = 103.5
        await frame(app, pilot)
        screen.task_tree.focus()
        screen.task_tree.select_task("step_2")
        await pilot.press("enter")
        await pilot.pause()
        details = app.screen
        assert isinstance(details, TaskDetailsScreen) and details.task_id == "step_2"
        shown = screen_text(app)
        assert "step_2 · FILE_READ · running" in shown
        assert "needed by step_3" in shown and "depends on nothing" in shown
        assert "attempt 1 · worker-2 · 0.0s" in shown and "✗ rejected by reviewer-step_2" in shown
        assert "- list the tests folder too" in shown and "attempt 2 · worker-2 · 3.5s" in shown
        app.bus.publish(ev.TaskStatusChanged("step_2", "step_2", "COMPLETED", result="**src/** and **tests/**"))
        await frame(app, pilot)
        assert "src/ and tests/" in screen_text(app)  # live, and the result rendered
        await pilot.press("escape")
        assert app.screen is screen


async def test_d_opens_the_focused_panes_step_and_enter_on_a_summary_row_opens_that_task():
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot)
        start(app.bus, "step_1", "worker-1")
        await frame(app, pilot)
        screen.pane("worker-1").focus()
        await pilot.press("d")
        assert isinstance(app.screen, TaskDetailsScreen) and app.screen.task_id == "step_1"
        await pilot.press("escape")
        finish(app.bus)
        await frame(app, pilot)
        summary = screen.query_one(RunSummary)
        summary.tasks_list.focus()
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, TaskDetailsScreen) and app.screen.task_id == "step_3"


async def test_g_shows_the_timeline_in_the_panes_place_and_escape_brings_them_back():
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot)
        start(app.bus, "step_1", "worker-1")
        NOW[0] = 104.0
        app.bus.publish(ev.TaskStatusChanged("step_1", "step_1", "COMPLETED", result="ok"))
        await frame(app, pilot)
        await pilot.press("g")
        await pilot.pause()
        timeline = screen.query_one(RunTimeline)
        assert timeline.region.height > 0 and not screen.query_one("#run-panes").display
        assert timeline.chart is not None and timeline.chart.critical == ("step_1",)
        shown = screen_text(app)
        assert "critical path: step_1" in shown and "worker-1 █" in shown.replace("worker-1  █", "worker-1 █")
        await pilot.press("escape")  # leaves the timeline first, never cancels from it
        assert screen.query_one("#run-panes").display and not screen.cancelling and app.screen is screen


async def test_h_hides_the_tree_and_the_panes_take_its_width():
    app = host()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(app, pilot)
        assert screen.layout_now.mode == "focus"
        await pilot.press("h")
        assert not screen.task_tree.display
        assert screen.layout_now.mode == "grid" and all(p.display for p in screen.panes)
        await pilot.press("h")
        assert screen.task_tree.display


async def test_the_layout_keys_lay_the_screen_out_before_they_return():
    """No wait for Textual's next update tick: the regions are new as soon
    as the action returns (keys answered in up to 60 ms while panes streamed)."""
    app = host()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(app, pilot)
        await pilot.pause()
        assert screen.layout_now.mode == "focus"  # one pane shown: the next worker's takes its place
        tree = screen.task_tree
        assert tree.region.width > 0
        widths = [pane.region.width for pane in screen.panes]
        screen.action_toggle_tree()
        assert tree.region.width == 0, "the tree still holds its place on screen"
        assert [pane.region.width for pane in screen.panes] != widths
        screen.action_toggle_tree()
        assert tree.region.width > 0 and [pane.region.width for pane in screen.panes] == widths
        regions = [pane.region for pane in screen.panes]
        screen.action_next_worker()
        assert [pane.region for pane in screen.panes] != regions


async def test_h_twice_gives_the_focus_back_to_the_tree():
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot)
        screen.task_tree.focus()
        await pilot.pause()
        await pilot.press("h")
        assert not screen.task_tree.display and screen.focused is not screen.task_tree
        await pilot.press("h")
        await pilot.pause()
        assert screen.focused is screen.task_tree


async def test_s_folds_the_summary_to_its_first_line_and_back():
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot)
        await pilot.press("s")  # nothing to fold while it runs
        finish(app.bus)
        await frame(app, pilot)
        summary = screen.query_one(RunSummary)
        tall = summary.region.height
        await pilot.press("s")
        await pilot.pause()
        assert summary.collapsed and summary.region.height == 3 < tall
        await pilot.press("s")
        await pilot.pause()
        assert not summary.collapsed and summary.region.height == tall


async def test_t_folds_thinking_o_opens_tool_calls_and_r_shows_the_raw_replies():
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot)
        start(app.bus, "step_1", "worker-1")
        app.bus.publish(ev.ModelDelta("worker-1", "c1", "reasoning", "first I look around"))
        app.bus.publish(ev.ModelResponse("worker-1", "c1", "", "first I look around", (), "tool_calls", 9, 1, 0, 0.1))
        app.bus.publish(ev.ToolCallStarted("worker-1", "t1", "read_file", '{"path": "README.md"}'))
        app.bus.publish(ev.ToolCallFinished("worker-1", "t1", "read_file", True, "read 2 lines", "# Demo\nline two"))
        report(app.bus, "worker-1", "step_1", "short")
        await frame(app, pilot)
        pane = screen.pane("worker-1")
        [tool] = [e for e in pane.entries if isinstance(e, ToolEntry)]
        assert any(isinstance(e, ThoughtBlock) for e in pane.entries) and any(isinstance(e, ReportCard) for e in pane.entries)
        assert "first I look around" in screen_text(app) and "▸ thinking" not in screen_text(app)
        await pilot.press("t")
        await pilot.pause()
        assert "▸ thinking · 4 words" in screen_text(app) and "first I look around" not in screen_text(app)
        assert "arguments:" not in screen_text(app)
        await pilot.press("o")
        await pilot.pause()
        assert "arguments:" in screen_text(app) and "line two" in screen_text(app)
        assert '"status"' not in screen_text(app)
        await pilot.press("r")
        await pilot.pause()
        assert '"status": "completed"' in screen_text(app)
        row = pane.rows_of(tool).start - round(pane.scroll_y)
        await pilot.click(pane, offset=(3, 1 + row))  # one entry against the rest
        await pilot.pause()
        assert "-flipped" in tool.classes and "arguments:" not in pane.rendered_text()


async def test_z_zooms_a_pane_and_escape_restores_the_grid():
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot)
        start(app.bus, "step_2", "worker-2")
        await frame(app, pilot)
        await pilot.press("z")
        assert screen.maximized is screen.pane("worker-2")
        await pilot.press("escape")
        assert screen.maximized is None and not screen.cancelling


async def test_verdict_cards_show_the_summary_issues_and_notes():
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot)
        start(app.bus, "step_1", "worker-1")
        start(app.bus, "step_2", "worker-2")
        raw = '{"approved": false, "summary": "The sources are missing.", "issues": ["name the files"]}'
        app.bus.publish(ev.ReviewStarted("reviewer-step_1", "step_1", 1))
        app.bus.publish(ev.ModelResponse("reviewer-step_1", "r1", raw, "", (), "stop", 9, 1, 0, 0.1))
        app.bus.publish(ev.ReviewVerdictGiven("reviewer-step_1", "step_1", 1, False, "- name the files"))
        app.bus.publish(ev.ReviewStarted("reviewer-step_2", "step_2", 1))
        app.bus.publish(ev.ReviewVerdictGiven("reviewer-step_2", "step_2", 1, True, "Fine.", ("mention the licence",)))
        await frame(app, pilot)
        rejected = next(e for e in screen.pane("worker-1").entries if isinstance(e, VerdictCard))
        approved = next(e for e in screen.pane("worker-2").entries if isinstance(e, VerdictCard))
        assert "-rejected" in rejected.classes and "-approved" in approved.classes
        shown = screen_text(app)
        assert "✗ rejected · reviewer-step_1" in shown and "The sources are missing." in shown
        assert "• name the files" in shown
        assert "✓ approved · reviewer-step_2" in shown and "• mention the licence" in shown


async def test_a_replay_shows_its_badge_and_the_recorded_times():
    app = host(replay=True)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot)
        assert screen.model.replay and screen.query_one("#run-badge").display
        assert "REPLAY" in screen_text(app)
        NOW[0] = 10_000.0  # the wall clock is far ahead; a replay's times are the recorded ones
        for event, ts in ((ev.TaskDispatched("step_1", "step_1", "worker-1"), 100.0),
                          (ev.TaskStatusChanged("step_1", "step_1", "RUNNING"), 100.0),
                          (ev.ModelDelta("worker-1", "c1", "content", "x"), 102.4)):
            object.__setattr__(event, "ts", ts)
            app.bus.publish(event)
        await frame(app, pilot)
        assert screen.task_tree.label_text("step_1").startswith("◐ step_1 2.4s w1")


async def test_the_run_clock_stops_once_the_run_is_finished():
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = RunScreen(survey_plan("step"), "Survey the project", WORKERS, kind="team",
                           on_cancel=app.session.cancel, clock=clock, tick=True)
        ticks: list[float] = []
        original = screen._tick_live
        screen._tick_live = lambda: (ticks.append(NOW[0]), original())  # type: ignore[method-assign]
        await app.push_screen(screen)
        start(app.bus, "step_1", "worker-1")
        await frame(app, pilot)
        await pilot.pause(0.5)
        assert ticks  # the clock runs while a task does
        finish(app.bus)
        await frame(app, pilot)
        await pilot.pause(0.3)
        settled = len(ticks)
        await pilot.pause(0.8)  # four ticks of a clock still running
        assert len(ticks) == settled
