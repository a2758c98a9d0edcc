"""Markdown painted as lines (worker_pane.py, pane_entries.py, markdown_strips.py): no
line wider than the width, hanging indents, styled inline code and bold;
finished blocks are rendered once; the open block is rendered a few times
a second however fast text arrives; a hidden widget renders nothing."""

from __future__ import annotations

import asyncio
import time

from textual.app import App, ComposeResult

from paicli_tui.ui.run import pane_entries
from tests.support.timing import scaled
from paicli_tui.ui.common.markdown_doc import parse_blocks
from paicli_tui.ui.run.pane_ops import TextOp
from paicli_tui.ui.run.worker_pane import FRAMES_PER_S, WorkerPane
from paicli_tui.ui.common.markdown_strips import BlockStyles, block_lines

STYLES = BlockStyles()


def lines(text: str, width: int) -> list:
    return [line for block in parse_blocks(text) for line in block_lines(block, width, STYLES)]


def test_no_line_is_wider_than_the_width_even_with_wide_characters():
    text = ("漢字とかなの混じった長い文章がここに続きます。" * 3 + " 🙂🙂 emoji **bold** `code`\n\n"
            "- a list item that is long enough to wrap around twice at this width\n")
    for width in (8, 13, 30):
        assert all(line.cell_length <= width for line in lines(text, width))


def test_list_items_keep_a_hanging_indent_and_numbers():
    shown = [line.plain for line in lines("- alpha beta gamma delta epsilon\n\n1. one\n2. two\n", 16)]
    assert shown[:3] == ["• alpha beta", "  gamma delta", "  epsilon"]
    assert "1. one" in shown and "2. two" in shown


def test_a_finished_fence_with_no_language_is_drawn_not_a_crash():
    block = parse_blocks("```\nx = 1\n```\n")[0]
    shown = [line.plain.rstrip() for line in block_lines(block, 20, STYLES, highlighted=True)]
    assert "x = 1" in shown


def test_inline_code_and_bold_carry_their_styles():
    [line, _blank] = lines("a **b** `c` d\n", 40)
    assert line.plain == "a b c d"
    styled = {line.plain[span.start:span.end]: span.style for span in line.spans}
    assert styled["b"].bold and styled["c"] == STYLES.code


class Host(App[None]):
    def __init__(self, hidden: bool = False) -> None:
        super().__init__()
        self.hidden = hidden

    def compose(self) -> ComposeResult:
        pane = WorkerPane("worker-1")
        pane.display = not self.hidden
        yield pane


async def painted(pilot, pane: WorkerPane) -> None:
    deadline = time.monotonic() + scaled(5)
    await pilot.pause(0.05)
    while pane.pending and time.monotonic() < deadline:
        await pilot.pause(0.05)


def text_op(text: str) -> TextOp:
    return TextOp(1, "content", text)


async def test_finished_blocks_render_once_and_the_pane_repaints_a_few_times_per_burst(monkeypatch):
    calls: list[str] = []
    real = pane_entries.block_lines
    monkeypatch.setattr(pane_entries, "block_lines", lambda block, *a, **k: calls.append(block.source) or real(block, *a, **k))
    app = Host()
    async with app.run_test(size=(60, 40)) as pilot:
        pane = app.query_one(WorkerPane)
        text = "".join(f"Paragraph {n} says something.\n\n" for n in range(40))
        for start in range(0, len(text), 4):  # 4 characters a fragment, no pause: one burst
            await pane.write([text_op(text[start:start + 4])])
            if start % 40 == 0:
                await asyncio.sleep(0)
        await painted(pilot, pane)
        assert "Paragraph 39 says something." in pane.painted_text()
        assert pane.builds <= len(text) // 4 // 10  # not one paint per fragment
        calls.clear()
        await pane.write([text_op("One more paragraph.\n\nAnd the open one")])
        await painted(pilot, pane)
        # Only the block that just finished and the new ones: nothing older again.
        assert set(calls) <= {"Paragraph 39 says something.\n", "One more paragraph.\n", "And the open one"}
        assert pane.painted_text().rstrip().endswith("One more paragraph.\n\nAnd the open one")


async def test_a_hidden_pane_paints_nothing_until_shown():
    app = Host(hidden=True)
    async with app.run_test(size=(60, 20)) as pilot:
        pane = app.query_one(WorkerPane)
        await pane.write([text_op("Some **text**\n\nmore\n")])
        await pilot.pause(0.3)
        assert pane.builds == 0 and pane.pending
        pane.display = True
        await pilot.pause(0.2)
        assert pane.builds >= 1 and "Some text" in pane.painted_text()


async def test_a_due_pane_paints_in_the_frame_that_brought_the_text_and_a_later_one_waits():
    """Panes written in one frame are painted in that frame's screen update,
    not each on a timer of its own; text within 1/30 s of a paint waits."""
    app = Host()
    async with app.run_test(size=(60, 20)) as pilot:
        pane = app.query_one(WorkerPane)
        await painted(pilot, pane)
        await pilot.pause(2 / FRAMES_PER_S)
        builds = pane.builds
        await pane.write([text_op("First words")])
        assert pane.builds == builds + 1 and not pane.pending and "First words" in pane.painted_text()
        await pane.write([text_op(" and more")])
        assert pane.builds == builds + 1 and pane.pending
        await painted(pilot, pane)
        assert pane.builds == builds + 2 and "First words and more" in pane.painted_text()


async def test_a_new_width_draws_the_rows_in_view_in_its_frame_and_the_rest_right_after(monkeypatch):
    """A layout (the tree hidden) must not wait for every finished block to
    be wrapped again: a pane that follows its tail draws what is in view
    first; the blocks above follow after the frame."""
    asked: list[tuple[int | None, bool]] = []
    real = pane_entries.AnswerBlock.strips

    def recording(self, width, view, first, rows_wanted=None):
        strips = real(self, width, view, first, rows_wanted)
        asked.append((rows_wanted, self.partial))
        return strips

    monkeypatch.setattr(pane_entries.AnswerBlock, "strips", recording)
    app = Host()
    async with app.run_test(size=(60, 12)) as pilot:
        pane = app.query_one(WorkerPane)
        await pane.write([text_op("".join(f"Paragraph {n} says something.\n\n" for n in range(60)) + "The end")])
        await painted(pilot, pane)
        asked.clear()
        pane.styles.width = 40
        # The rest comes after the frame: wait for it (a loaded machine is slow to get there).
        deadline = time.monotonic() + scaled(10)
        while not (asked and asked[-1] == (None, False)) and time.monotonic() < deadline:
            await pilot.pause(0.05)
        assert any(wanted and partial for wanted, partial in asked), asked  # the frame drew only the tail
        assert asked[-1] == (None, False)  # then everything
        shown = pane.painted_text()
        assert "Paragraph 0 says" in shown and shown.rstrip().endswith("The end")
        assert max(len(line) for line in shown.splitlines()) <= 40


TABLE = "| Name | Role |\n|---|---|\n| **api** | serves `/v1` |\n| a name long enough to wrap at a narrow width | x |\n"


def test_a_table_lines_up_its_columns_within_the_width_and_rules_off_its_header():
    for width in (80, 30, 14):
        shown = lines(TABLE, width)[:-1]  # the blank line after the block
        assert all(line.cell_length <= width for line in shown)
        bars = {line.plain.index("│") for line in shown if "│" in line.plain}
        assert len(bars) == 1, f"columns not aligned at {width}: {[line.plain for line in shown]}"
        assert shown[1].plain.strip("─") == "┼" and shown[2].plain.startswith("api")
        assert any(span.style.bold for span in shown[0].spans)
    assert len(lines(TABLE, 14)) > len(lines(TABLE, 80)), "a long cell wraps within its column"
    assert lines(TABLE, 5)[0].plain == "| Name | Role |", "too narrow for its columns: shown as written"
