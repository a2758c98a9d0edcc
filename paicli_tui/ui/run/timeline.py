"""The run's timeline (``g``): one lane per worker, a bar per task attempt
coloured by its outcome, the review part of a bar shaded and marked ◆, a
retry marked ↻, the critical path underlined ━ — growing while the run goes
on, the same at the end and in a replay. It draws ``timeline_model``."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from paicli_tui.present.figures import format_clock
from paicli_tui.ui.run.run_model import RunModel
from paicli_tui.ui.run.timeline_model import Bar, Timeline, build_timeline

OUTCOMES = ("running", "completed", "rejected", "failed", "blocked", "cancelled", "conflict")
LEGEND = (("completed", "done"), ("running", "running"), ("rejected", "rejected"), ("failed", "failed"),
          ("cancelled", "cancelled"))
#: A bar waiting on a merge conflict has its own fill, so it reads apart
#: from a rejected one even where the theme gives both the same colour.
FILLS = {"conflict": "≠"}


class RunTimeline(Static):
    COMPONENT_CLASSES = {f"timeline--{name}" for name in (*OUTCOMES, "critical", "review", "axis", "lane", "on-bar")}
    DEFAULT_CSS = """
    RunTimeline {
        height: auto;
        padding: 0 1;
        & > .timeline--running { color: $primary; }
        & > .timeline--completed { color: $success; }
        & > .timeline--rejected { color: $warning; }
        & > .timeline--failed { color: $error; }
        & > .timeline--blocked { color: $warning; }
        & > .timeline--cancelled { color: $text-muted; }
        & > .timeline--conflict { color: $warning; text-style: bold reverse; }
        & > .timeline--critical { color: $foreground; text-style: bold; }
        & > .timeline--review { color: $secondary; }
        & > .timeline--axis { color: $text-muted; }
        & > .timeline--lane { color: $text; text-style: bold; }
        & > .timeline--on-bar { color: $background; text-style: bold; }
    }
    """

    def __init__(self, model: RunModel, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model = model
        self.chart: Timeline | None = None

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"timeline--{name}", partial=True)

    def on_resize(self) -> None:
        self.refresh_chart()

    def refresh_chart(self) -> None:
        if not self.display or not self.is_mounted:
            return
        model = self.model
        chart = self.chart = build_timeline(
            model.attempts, model.tasks, list(model.workers), model.started_at, model.now(), model.version or None
        )
        self.update(self.draw(chart, max(20, self.content_size.width)))

    def draw(self, chart: Timeline, width: int) -> Text:
        label_width = max(len(name) for name, _ in chart.lanes) + 1 if chart.lanes else 9
        cells = max(10, width - label_width)
        out = Text(no_wrap=True, overflow="crop")
        path = " → ".join(chart.critical) if chart.critical else "none yet"
        out.append(f"{format_clock(chart.span)} · critical path: ", self._style("axis"))
        out.append(path + "\n", self._style("critical"))
        out.append_text(self._axis(chart, label_width, cells))
        for name, bars in chart.lanes:
            out.append(name.ljust(label_width), self._style("lane"))
            out.append_text(self._bars(chart, bars, cells))
            out.append("\n" + " " * label_width)
            out.append_text(self._marks(chart, bars, cells))
            out.append("\n")
        out.append_text(self._legend(chart))
        return out

    def _axis(self, chart: Timeline, label_width: int, cells: int) -> Text:
        row = [" "] * cells
        for cell, label in chart.ticks(cells):
            if cell + len(label) <= cells and all(c == " " for c in row[max(0, cell - 1) : cell + len(label)]):
                row[cell] = "╵"
                row[cell + 1 : cell + 1 + len(label)] = list(label)[: max(0, cells - cell - 1)]
        return Text(" " * label_width + "".join(row[:cells]) + "\n", self._style("axis"))

    def _bars(self, chart: Timeline, bars: tuple[Bar, ...], cells: int) -> Text:
        row: list[tuple[str, Style]] = [(" ", Style())] * cells
        for bar in bars:
            first, last = chart.column(bar.start, cells), chart.column(bar.end, cells)
            review = chart.column(bar.review_at, cells) if bar.review_at is not None else None
            style = self._style(bar.outcome if bar.outcome in OUTCOMES else "cancelled")
            for cell in range(first, max(first, last) + 1):
                shade = "▒" if review is not None and cell >= review else FILLS.get(bar.outcome, "█")
                row[cell] = (shade, style)
            label = bar.task_id + (f"#{bar.attempt}" if bar.retry else "")
            if last - first + 1 >= len(label) + 2:
                on_bar = self._style("on-bar") + Style(bgcolor=style.color) if style.color else style
                for offset, char in enumerate(label, start=first + 1):
                    row[offset] = (char, on_bar)
        text = Text()
        for char, style in row:
            text.append(char, style)
        return text

    def _marks(self, chart: Timeline, bars: tuple[Bar, ...], cells: int) -> Text:
        row: list[tuple[str, Style]] = [(" ", Style())] * cells
        for bar in bars:
            first, last = chart.column(bar.start, cells), chart.column(bar.end, cells)
            if bar.critical:
                for cell in range(first, max(first, last) + 1):
                    row[cell] = ("━", self._style("critical"))
            if bar.retry:
                row[first] = ("↻", self._style("rejected"))
            if bar.review_at is not None:
                row[chart.column(bar.review_at, cells)] = ("◆", self._style("review"))
        text = Text()
        for char, style in row:
            text.append(char, style)
        return text

    def _legend(self, chart: Timeline) -> Text:
        text = Text()
        for outcome, word in LEGEND:
            text.append("█", self._style(outcome))
            text.append(f" {word} ", self._style("axis"))
        if any(bar.outcome == "conflict" for _, bars in chart.lanes for bar in bars):
            text.append("≠", self._style("conflict"))
            text.append(" conflict ", self._style("axis"))
        text.append("▒◆", self._style("review"))
        text.append(" review ", self._style("axis"))
        text.append("↻", self._style("rejected"))
        text.append(" retry ", self._style("axis"))
        text.append("━", self._style("critical"))
        text.append(" critical", self._style("axis"))
        return text
