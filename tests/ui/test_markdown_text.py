"""MarkdownText (ui/common/markdown_text.py): an answer in the transcript
painted as lines — one widget, finished blocks drawn once per width, the
last block closed by ``finish``, text selectable for copying."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from paicli_tui.ui.common.markdown_text import MarkdownText

ANSWER = "## Plan\n\nRead the **notes** first.\n\n- one\n- two\n\n```python\ndef f():\n    return 1\n"


class OneAnswer(App[None]):
    def __init__(self, text: str = "") -> None:
        super().__init__()
        self.answer = MarkdownText(text)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield self.answer


def texts(widget: MarkdownText, width: int) -> list[str]:
    return [row.text.rstrip() for row in widget.rows(width)]


async def test_an_answer_is_one_widget_whose_height_is_its_rows():
    app = OneAnswer(ANSWER)
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        answer = app.answer
        assert not answer.children
        rows = texts(answer, answer.content_size.width)
        assert rows[:5] == ["", "Plan", "Read the notes first.", "", "• one"]
        assert answer.region.height == len(rows)


async def test_finish_closes_the_open_fence_and_colours_it():
    app = OneAnswer(ANSWER)
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        answer = app.answer
        width = answer.content_size.width
        code = next(row for row in answer.rows(width) if "def f" in row.text)
        assert len({segment.style for segment in code if segment.text.strip()}) == 1, "coloured while open"
        await answer.finish()
        await pilot.pause()
        code = next(row for row in answer.rows(width) if "def f" in row.text)
        assert len({segment.style for segment in code if segment.text.strip()}) > 1
        last, padding = answer.rows(width)[-2:]
        assert "return 1" in last.text and not padding.text.strip(), "the fence keeps its padding row below"
        assert padding.cell_length == width and padding == answer.rows(width)[-4], "the same as the one above the code"
        answer.write("more")
        assert "more" not in answer.source


async def test_a_width_flipped_back_draws_no_finished_block_again():
    app = OneAnswer(ANSWER)
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        answer = app.answer
        heading = answer.rows(40)[1]
        narrow = answer.rows(20)
        assert answer.rows(40)[1] is heading
        assert len(narrow) > len(answer.rows(40))


async def test_the_selection_copies_the_answer_as_shown():
    app = OneAnswer(ANSWER)
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        app.answer.text_select_all()
        await pilot.pause()
        selected = app.screen.get_selected_text()
        assert "Read the notes first." in selected and "• two" in selected and "return 1" in selected
