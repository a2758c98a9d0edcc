"""The entries a worker pane is made of: a step heading, streamed Markdown,
a dimmed thought that folds, a one-line tool call that opens, a report card,
a verdict card, a notice.

What is folded or open follows the run screen's classes (``-fold-thinking``,
``-open-tools``, ``-raw``), so one key restyles every pane at once without
touching an entry; a click flips one entry against that. Every entry has a
``plain`` text (what it says, for tests and the pane's ``text``).
"""

from __future__ import annotations

import json

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Markdown, Static

from paicli_tui.ui.run import pane_ops as ops
from paicli_tui.ui.run.markdown_doc import shared_parser
from paicli_tui.ui.run.markdown_lines import MarkdownLines
from paicli_tui.ui.run.plain_log import PlainLog
from paicli_tui.ui.run.text_chunks import clean

#: Characters of a tool's result shown when its entry is open.
TOOL_DETAIL_CHARS = 4000
#: Characters of one frame's text the run screen's warm-up streams into an answer.
MARKDOWN_BUDGET = 1500


def markdown_chunk() -> Markdown:
    """A Markdown widget sharing one parser (cards use them)."""
    return Markdown(classes="chunk", parser_factory=shared_parser)


class AnswerBlock(MarkdownLines):
    """An answer streamed as Markdown, painted as lines: finished blocks are
    rendered once, only the open one again, a few times a second at most
    (markdown_lines.py). One widget however long the answer is."""

    def __init__(self) -> None:
        super().__init__(classes="entry answer")

    async def append(self, text: str) -> None:
        text = clean(text)
        if text:
            super().append(text)

    @property
    def plain(self) -> str:
        return self.doc.text


class ThoughtBlock(Vertical):
    """Reasoning: dimmed, and folded to one line under ``-fold-thinking``."""

    DEFAULT_CSS = "ThoughtBlock { height: auto; }"

    def __init__(self) -> None:
        super().__init__(classes="entry thought")
        self.fold = Static(classes="fold")
        self.body = PlainLog(classes="body")
        self.words = 0

    def compose(self) -> ComposeResult:
        yield self.fold
        yield self.body

    async def append(self, text: str) -> None:
        text = clean(text)
        self.body.append(text)
        self.words += len(text.split())
        self.fold.update(Content(f"▸ thinking · {self.words} words (click or t to show)"))

    def on_click(self) -> None:
        self.toggle_class("-flipped")

    @property
    def plain(self) -> str:
        return self.body.text


class StructuredBlock(Vertical):
    DEFAULT_CSS = "StructuredBlock { height: auto; }"
    """A report or verdict being written: one line while it streams, the raw
    JSON only in the raw view; shown as text if it was not one after all."""

    def __init__(self, what: str) -> None:
        super().__init__(classes="entry structured")
        self.what = what
        self.raw = ""
        self.line = Static(Content(f"… writing the {what}"), classes="line")
        self.raw_view = Static(classes="raw")

    def compose(self) -> ComposeResult:
        yield self.line
        yield self.raw_view

    async def append(self, text: str) -> None:
        self.raw += clean(text)
        self.line.update(Content(f"… writing the {self.what} · {len(self.raw)} characters"))
        self.raw_view.update(Content(self.raw))

    def settle(self) -> None:
        self.add_class("-settled")

    def release(self) -> None:
        self.add_class("-released")

    @property
    def plain(self) -> str:
        return self.raw


class StepHeading(Static):
    def __init__(self, op: ops.StepOp) -> None:
        text = f"▶ {op.task_id} · attempt {op.attempt}" + (f" · {op.description}" if op.description else "")
        super().__init__(Content(text), classes="entry heading")
        self.plain = text


class Notice(Static):
    def __init__(self, op: ops.NoticeOp) -> None:
        super().__init__(Content(op.text), classes=f"entry notice -{op.kind}")
        self.plain = op.text


class ToolEntry(Vertical):
    DEFAULT_CSS = "ToolEntry { height: auto; }"
    """``→ tool subject · ✓ summary`` on one line; its arguments and result
    below it when open (a click, or ``o`` for all)."""

    def __init__(self, op: ops.ToolOp) -> None:
        super().__init__(classes="entry tool -running")
        self.op = op
        self.outcome = "…"
        self.details = ""
        self.line = Static(self._line(), classes="line")
        self.details_view = Static(Content(self._arguments()), classes="details")

    def compose(self) -> ComposeResult:
        yield self.line
        yield self.details_view

    def _line(self) -> Content:
        head = f"→ {self.op.tool} {self.op.subject}".rstrip()
        return Content(f"{head} · {self.outcome}")

    def _arguments(self) -> str:
        try:
            shown = json.dumps(json.loads(self.op.arguments), indent=2, ensure_ascii=False)
        except (ValueError, TypeError):
            shown = self.op.arguments
        text = f"arguments:\n{clean(shown)}"
        return f"{text}\nresult:\n{self.details}" if self.details else text

    def finished(self, op: ops.ToolDoneOp) -> None:
        self.outcome = f"{'✓' if op.ok else '✗'} {op.summary}".rstrip()
        content = clean(op.content)
        self.details = content[:TOOL_DETAIL_CHARS] + ("…" if len(content) > TOOL_DETAIL_CHARS else "")
        self.remove_class("-running")
        self.add_class("-ok" if op.ok else "-failed")
        self.line.update(self._line())
        self.details_view.update(Content(self._arguments()))

    def on_click(self) -> None:
        self.toggle_class("-flipped")

    @property
    def plain(self) -> str:
        return self._line().plain


def _raw_text(raw: str) -> str:
    try:
        return json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
    except (ValueError, TypeError):
        return raw


class ReportCard(Vertical):
    DEFAULT_CSS = "ReportCard { height: auto; }"
    """A worker's report: a status badge, the reason when it is blocked or
    invalid, the result rendered."""

    def __init__(self, op: ops.ReportOp) -> None:
        super().__init__(classes=f"entry card report -{op.status}")
        self.op = op
        glyph = {"completed": "✓", "blocked": "■"}.get(op.status, "✗")
        self.border_title = Content(f"{glyph} report · {op.status}")
        self.border_subtitle = Content(f"{op.step_id} · attempt {op.attempt}")

    def compose(self) -> ComposeResult:
        op = self.op
        if op.reason:
            label = "could not be read" if op.status == "invalid" else "reason"
            yield Static(Content(f"{label}: {clean(op.reason)}"), classes="reason")
        if op.result and op.status != "invalid":
            yield Markdown(clean(op.result), classes="result")
        yield Static(Content(_raw_text(op.raw or op.result)), classes="raw")

    @property
    def plain(self) -> str:
        return "\n".join(p for p in (str(self.border_title), self.op.reason, self.op.result) if p)


class VerdictCard(Vertical):
    DEFAULT_CSS = "VerdictCard { height: auto; }"
    """A reviewer's verdict: approved or rejected, its summary, the issues
    as a list, an approval's notes."""

    def __init__(self, op: ops.VerdictOp) -> None:
        state = "approved" if op.approved else "rejected"
        super().__init__(classes=f"entry card verdict -{state}")
        self.op = op
        self.border_title = Content(f"{'✓' if op.approved else '✗'} {state} · {op.reviewer}")
        self.border_subtitle = Content(f"{op.step_id} · attempt {op.attempt}")

    def compose(self) -> ComposeResult:
        op = self.op
        feedback = clean(op.feedback).strip()
        if op.summary:
            yield Static(Content(clean(op.summary)), classes="summary")
        if feedback and feedback != op.summary.strip():
            yield Markdown(feedback, classes="issues")
        if op.notes:
            yield Markdown("notes:\n" + "\n".join(f"- {clean(note)}" for note in op.notes), classes="notes")
        yield Static(Content(_raw_text(op.raw)), classes="raw")

    @property
    def plain(self) -> str:
        parts = [str(self.border_title), self.op.summary, self.op.feedback, *self.op.notes]
        return "\n".join(p for p in parts if p)


class CheckCard(Vertical):
    DEFAULT_CSS = "CheckCard { height: auto; }"
    """A task's check: ✓/✗ with the exit and time in the title, the command,
    and its output folded like a tool's result (a click, or ``o`` for all)."""

    def __init__(self, op: ops.CheckOp) -> None:
        state = "passed" if op.passed else "failed"
        super().__init__(classes=f"entry card check -{state}")
        self.op = op
        self.border_title = Content(ops.check_title(op))
        self.border_subtitle = Content(f"{op.task_id} · attempt {op.attempt}")

    def compose(self) -> ComposeResult:
        lines = clean(self.op.output).rstrip("\n").splitlines()
        yield Static(Content(f"$ {clean(self.op.command)}"), classes="command")
        fold = f"▸ output · {len(lines)} line{'s' if len(lines) != 1 else ''} (click or o to show)" if lines \
            else "▸ no output"
        yield Static(Content(fold), classes="fold")
        yield Static(Content("\n".join(lines) or "(no output)"), classes="details")

    def on_click(self) -> None:
        self.toggle_class("-flipped")

    @property
    def plain(self) -> str:
        return f"{self.border_title}\n$ {self.op.command}"


def warm_up_entries() -> list[Widget]:
    """One entry of every kind, with the Markdown blocks an answer usually
    has: mounted once, hidden, so their CSS is read before a run streams."""
    return [
        Markdown("warm *up*\n\n## b\n\n- `c`\n\n```\nd\n```"),
        AnswerBlock(),
        ThoughtBlock(),
        StructuredBlock("report"),
        StepHeading(ops.StepOp("t", 1, "")),
        Notice(ops.NoticeOp("review", "")),
        ToolEntry(ops.ToolOp("c", "t", "", "{}")),
        ReportCard(ops.ReportOp("t", 1, "completed", "r", "")),
        VerdictCard(ops.VerdictOp("r", "t", 1, False, "s", "- i", ("n",))),
        CheckCard(ops.CheckOp("t", 1, "true", True, "exit 0", 0.0, "")),
    ]
