"""CONFLICT where the person looks, and a task's diff in its details: Pilot
tests on the run screen over real git (tests/ui/conflict_run.py)."""

from __future__ import annotations

import pytest

from paicli_tui import events as ev
from paicli_tui.ui.run.run_summary import RunSummary
from paicli_tui.ui.run.timeline import RunTimeline
from paicli_tui.ui.run.worker_pane import WorkerPane
from tests.ui.conflict_run import NOW, SECOND, host, publish, settle, step_2_in_conflict

pytestmark = pytest.mark.timeout(60)


def shown(widget) -> str:
    return str(widget.render())


async def test_a_conflict_marks_the_pane_title_the_timeline_and_clears_on_the_rerun(tmp_path):
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        state = await step_2_in_conflict(pilot, tmp_path)
        screen = state.screen
        pane = screen.query_one("#pane-worker-2", WorkerPane)
        assert pane.has_class("-conflict") and "≠ CONFLICT" in str(pane.border_title)
        other = screen.query_one("#pane-worker-1", WorkerPane)
        assert not other.has_class("-conflict") and "CONFLICT" not in str(other.border_title)
        await pilot.press("g")
        await pilot.pause()
        timeline = screen.query_one(RunTimeline)
        bars = {bar.task_id: bar.outcome for _, lane in timeline.chart.lanes for bar in lane}
        assert bars == {"step_1": "completed", "step_2": "conflict"}
        drawn = shown(timeline)
        assert "≠ conflict" in drawn and "≠≠" in drawn  # the bar's own fill, named in the legend
        # The person chose to re-run it: a new attempt, no longer in conflict.
        state.run.decided(state.run.attempt("step_2", "worker-2"), "rerun")
        publish(app, ev.StepRetry("worker-2", "step_2", 2, "merge conflict"),
                ev.TaskDispatched("step_2", "step_2", "worker-2", 2), ev.TaskStatusChanged("step_2", "step_2", "RUNNING"))
        await settle(pilot)
        assert not pane.has_class("-conflict") and "CONFLICT" not in str(pane.border_title)
        assert "≠ conflict" not in shown(timeline)
        state.run.close()


async def test_the_summary_shows_files_lines_and_the_merge_after_a_settled_conflict(tmp_path):
    app = host()
    async with app.run_test(size=(160, 36)) as pilot:
        state = await step_2_in_conflict(pilot, tmp_path)
        run, conflict = state.run, state.conflict
        attempt = run.attempt("step_2", "worker-2")  # the conflicted attempt's decision: keep the task's side
        settled = run.settle(attempt, conflict, {"src/calc.py": SECOND})
        assert settled.status == "merged"
        NOW[0] = 109.0
        publish(app, ev.TaskStatusChanged("step_2", "step_2", "COMPLETED", result="add is b + a"),
                ev.TaskStatusChanged("step_3", "step_3", "SKIPPED", error="cancelled"),
                ev.RunFinished("orchestrator", "FAILED", "Team run FAILED", {}))
        await settle(pilot)
        summary = state.screen.query_one(RunSummary)
        rows = {task_id: str(summary.row(task_id)) for task_id in ("step_1", "step_2", "step_3")}
        assert "1 file +2 −0 merged" in rows["step_1"]
        assert "1 file +2 −1 merged after a conflict" in rows["step_2"]
        assert "file" not in rows["step_3"]
        run.close()


async def test_a_task_in_conflict_says_so_in_the_summary_row(tmp_path):
    app = host()
    async with app.run_test(size=(160, 36)) as pilot:
        state = await step_2_in_conflict(pilot, tmp_path)
        row = str(state.screen.query_one(RunSummary).row("step_2"))
        assert "≠ conflict in src/calc.py" in row and "not merged" in row
        state.run.close()


async def test_details_show_the_tasks_diff_against_its_base_coloured(tmp_path):
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        state = await step_2_in_conflict(pilot, tmp_path)
        state.screen.open_details("step_1")
        await settle(pilot)
        details = app.screen
        title = shown(details.query_one("#details-changes-title"))
        assert title == "Changes · 1 file +2 −0 · merged"
        changes = details.query_one("#details-changes")
        text = shown(changes)
        assert "▍src/calc.py" in text and "+    if a is None or b is None:" in text and "index " not in text
        content = changes.content
        styles = {content.plain[span.start:span.end]: str(span.style) for span in content.spans}
        assert styles["+    if a is None or b is None:"] == "$text-success"
        assert styles["▍src/calc.py"] == "bold" and any(text.startswith("@@ ") and style == "$text-accent" for text, style in styles.items())
        await pilot.press("escape")
        state.screen.open_details("step_2")
        await settle(pilot)
        text = shown(app.screen.query_one("#details-changes"))
        assert "-    return a + b" in text and "+    return b + a" in text and "+# sub stays as it is" in text
        assert "not merged" in shown(app.screen.query_one("#details-changes-title"))
        state.run.close()


async def test_a_diff_longer_than_the_limit_is_cut_with_a_note(tmp_path):
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        state = await step_2_in_conflict(pilot, tmp_path)
        run = state.run
        attempt = run.attempt("step_3", "worker-1")
        (attempt.path / "big.txt").write_text("".join(f"row {n}\n" for n in range(5000)))
        publish(app, ev.TaskDispatched("step_3", "step_3", "worker-1", 1))
        run.commit(attempt)
        await settle(pilot)
        state.screen.open_details("step_3")
        await settle(pilot)
        text = shown(app.screen.query_one("#details-changes"))
        assert "+row 0" in text and "+row 4999" not in text
        assert "[diff cut: " in text and "more lines]" in text
        run.close()


async def test_details_without_a_diff_reader_say_the_diff_is_not_available(tmp_path):
    app = host()
    async with app.run_test(size=(120, 36)) as pilot:
        state = await step_2_in_conflict(pilot, tmp_path)
        state.screen.diff_source = None
        state.screen.open_details("step_1")
        await settle(pilot)
        assert "not available" in shown(app.screen.query_one("#details-changes"))
        state.run.close()
