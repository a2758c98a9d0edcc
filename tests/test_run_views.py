"""The run screen's Textual-free parts: where panes go at each size, how a
stream is cut into chunks, the timeline's bars and critical path, the hint
line, and the cheap incremental wrap used for burst text."""

from __future__ import annotations

from rich.cells import cell_len

from paicli_tui.present.figures import format_clock, format_cost, format_elapsed, format_tokens, narrow_glyphs
from paicli_tui.ui.run.plain_log import WrappedText, wrap
from paicli_tui.ui.run.run_hints import hints_for
from paicli_tui.ui.run.run_layout import MIN_PANE_WIDTH, plan_layout, tree_width
from paicli_tui.records.run_views import AttemptView, TaskView
from paicli_tui.ui.run.text_chunks import Chunker, plain_line
from paicli_tui.ui.run.timeline_model import build_timeline, critical_path


def workers(n: int) -> list[str]:
    return [f"worker-{i}" for i in range(1, n + 1)]


# -- layout ---------------------------------------------------------------------------------


def test_panes_form_a_grid_while_each_gets_forty_columns_and_focus_beyond():
    wide_3 = plan_layout(200, 48, workers(3), tree_wanted=45)
    assert (wide_3.mode, wide_3.columns, wide_3.rows, wide_3.tree_width) == ("grid", 3, 1, 45)
    wide_4 = plan_layout(200, 48, workers(4), tree_wanted=45)
    assert (wide_4.columns, wide_4.rows, wide_4.last_span) == (2, 2, 1)
    mid_3 = plan_layout(120, 34, workers(3), tree_wanted=45)
    assert (mid_3.mode, mid_3.columns, mid_3.rows, mid_3.last_span) == ("grid", 2, 2, 2)  # the third spans the row
    assert (120 - mid_3.tree_width) // mid_3.columns >= MIN_PANE_WIDTH
    narrow = plan_layout(80, 22, workers(2), tree_wanted=45)
    assert (narrow.mode, narrow.shown, narrow.strip) == ("focus", ("worker-1",), ("worker-2",))
    chosen = plan_layout(80, 22, workers(4), selected="worker-3", tree_wanted=45)
    assert chosen.shown == ("worker-3",) and chosen.strip == ("worker-1", "worker-2", "worker-4")


def test_the_tree_takes_what_its_rows_need_up_to_its_share_and_can_be_hidden():
    assert tree_width(30, 200, True) == 30  # what its rows need
    assert tree_width(90, 200, True) == 60  # at most 30 % of the screen
    assert tree_width(90, 80, True) == 24
    assert tree_width(90, 60, True) == 0  # no room for both: the panes win
    assert tree_width(30, 200, False) == 0
    hidden = plan_layout(80, 22, workers(2), tree_visible=False)
    assert hidden.tree_width == 0 and hidden.mode == "grid" and hidden.columns == 2  # 40 columns each


# -- chunks ------------------------------------------------------------------------------


def test_a_stream_is_cut_at_paragraph_breaks_outside_code_fences():
    chunker = Chunker(soft=10, hard=1000)
    pieces = chunker.split("first paragraph\n\n```\ncode\n\nstill code\n```\nafter\n\nnext")
    assert pieces == ["first paragraph\n\n", "```\ncode\n\nstill code\n```\nafter\n\n", "next"]
    assert "".join(pieces) == "first paragraph\n\n```\ncode\n\nstill code\n```\nafter\n\nnext"


def test_a_long_paragraph_is_cut_at_a_line_end_and_a_cut_at_the_end_opens_the_next_chunk():
    chunker = Chunker(soft=10, hard=20)
    assert chunker.split("aaaa aaaa aaaa aaaa\n" * 3) == ["aaaa aaaa aaaa aaaa\naaaa aaaa aaaa aaaa\n", "aaaa aaaa aaaa aaaa\n"]
    assert chunker.mid_paragraph == [True]  # the paragraph runs on into the next chunk
    chunker = Chunker(soft=5, hard=100)
    assert chunker.split("one two\n\n") == ["one two\n\n"]
    assert chunker.mid_paragraph == []
    assert chunker.split("three") == ["", "three"]  # a new chunk, not the end of the last one
    assert chunker.mid_paragraph == [False]  # after a blank line: a new paragraph


def test_a_preview_line_drops_markdown_marks_but_keeps_code_whole():
    assert plain_line("- `**/*.py` matches **one** file") == "**/*.py matches one file"
    assert plain_line("_(offline demo model; evidence from `list_dir`)_") == "offline demo model; evidence from list_dir"
    assert plain_line("## Layout") == "Layout" and plain_line("step_1 and step_2") == "step_1 and step_2"


# -- timeline ----------------------------------------------------------------------------


def _task(tid, deps=(), start=None, end=None, status="COMPLETED"):
    return TaskView(tid, tid, dependencies=list(deps), status=status, started=start, finished=end)


def test_the_critical_path_runs_back_through_the_dependency_that_ended_last():
    tasks = {
        "a": _task("a", start=0, end=2),
        "b": _task("b", start=0, end=5),
        "c": _task("c", ["a", "b"], start=5, end=9),
        "d": _task("d", start=0, end=3),
        "e": _task("e", status="PENDING"),
    }
    assert critical_path(tasks, now=10) == ["b", "c"]
    tasks["d"] = _task("d", start=0, end=None, status="RUNNING")  # still running at now=12: it ends last
    assert critical_path(tasks, now=12) == ["d"]


def test_the_timeline_has_a_lane_per_worker_and_a_bar_per_attempt():
    tasks = {"a": _task("a", start=100, end=104), "b": _task("b", ["a"], start=104, end=None, status="RUNNING")}
    attempts = [
        AttemptView("a", 1, "worker-1", 100.0, 102.0, "rejected", review_started=101.5),
        AttemptView("a", 2, "worker-1", 102.0, 104.0, "completed"),
        AttemptView("b", 1, "worker-2", 104.0, None, "running"),
    ]
    chart = build_timeline(attempts, tasks, ["worker-1", "worker-2", "worker-3"], 100.0, now=110.0)
    lanes = dict(chart.lanes)
    assert list(lanes) == ["worker-1", "worker-2", "worker-3"] and lanes["worker-3"] == ()
    first, retry = lanes["worker-1"]
    assert (first.outcome, first.review_at, first.retry, retry.retry) == ("rejected", 101.5, False, True)
    (running,) = lanes["worker-2"]
    assert (running.end, running.outcome) == (110.0, "running")  # grows with now
    assert chart.critical == ("a", "b") and all(bar.critical for bar in (first, retry, running))
    assert chart.span == 10.0 and chart.column(105.0, 40) == 20
    ticks = chart.ticks(40)
    assert ticks[0] == (0, "0s") and all(b[0] - a[0] >= 10 for a, b in zip(ticks, ticks[1:]))


# -- figures and hints --------------------------------------------------------------------------


def test_figures_show_tenths_below_ten_seconds_and_a_clock_for_the_run():
    assert [format_elapsed(s) for s in (0.96, 4.1, 9.94, 9.96, 61)] == ["1.0s", "4.1s", "9.9s", "10s", "1m01s"]
    assert (format_clock(12.7), format_clock(3723)) == ("00:12", "1:02:03")


def test_one_formatter_for_tokens_and_one_for_cost():
    assert [format_tokens(n) for n in (171, 3000, 3456, 12_345, 1_234_567)] == [
        "171 tok", "3k tok", "3.5k tok", "12k tok", "1.2M tok"]
    assert format_tokens(12_345, "") == "12k"
    assert [format_cost(d) for d in (0, 0.0042, 0.0213, 12.5)] == ["$0", "$0.0042", "$0.02", "$12.50"]
    assert format_cost(0.0042, estimate=True) == "≈$0.0042"


def test_the_summarys_emoji_become_narrow_glyphs():
    text = narrow_glyphs("✅ step_1 ❌ step_2 ⛔ step_3 ⏭️ step_4")
    assert text == "✓ step_1 ✗ step_2 ■ step_3 ⊘ step_4"
    assert cell_len(text) == len(text)  # one cell per character: borders stay put


def test_hints_fit_the_width_and_name_the_keys_of_the_state():
    for width in (80, 120, 200):
        for state in ("running", "finished"):
            line = hints_for(state, width, focus=width == 80)
            assert len(line) <= width - 2
    assert hints_for("running", 200).startswith("[Esc] cancel run · [Enter] details")
    assert "[s] summary" in hints_for("finished", 200) and "[s]" not in hints_for("running", 200)
    assert "[ and ] worker" in hints_for("running", 120, focus=True)


# -- the cheap wrap ---------------------------------------------------------------------------


def test_incremental_wrapping_matches_wrapping_the_whole_line():
    text = "the quick brown fox jumps over the lazy dog; 漢字も折り返す supercalifragilisticexpialidocious " * 5
    buffer = WrappedText(width=17)
    for start in range(0, len(text), 7):
        buffer.append(text[start : start + 7])
    assert buffer.rows == wrap(text, 17)
    assert "".join(buffer.rows) == text
    assert all(cell_len(row.rstrip(" ")) <= 17 for row in buffer.rows)
    buffer.append("\nnext\n\nafter a blank")
    assert buffer.lines[1:] == ["next", "", "after a blank"]
    buffer.rewrap(30)
    assert buffer.rows[: len(wrap(text, 30))] == wrap(text, 30)
