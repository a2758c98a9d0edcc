"""What a worker pane says, as a list of entries that draw themselves as
lines (no widget per entry): a step heading, streamed Markdown, a dimmed
thought that folds, a one-line tool call that opens, a report card, a
verdict card, a notice.

Each entry turns into styled lines at a width (``lines``); the pane keeps
the strips and asks again only when the entry changed (``version``), the
width changed, or a view flag it depends on changed. An answer keeps its
finished Markdown blocks' strips per width and renders only its open block
again. Every entry has a ``plain`` text (what it says, for tests and the
pane's ``text``) and ``classes`` naming its kind and state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable

from textual.content import Content
from textual.strip import Strip
from textual.style import Style

from paicli_tui.ui.run import pane_ops as ops
from paicli_tui.ui.common.markdown_doc import MarkdownDoc, parse_blocks
from paicli_tui.ui.common.markdown_strips import BlockStyles, DrawnBlocks, block_lines
from paicli_tui.ui.run.text_chunks import clean

#: Characters of a tool's result shown when its entry is open.
TOOL_DETAIL_CHARS = 4000


@dataclass(frozen=True)
class View:
    """How the pane draws its entries right now: the screen's folds and the
    styles read from its CSS. ``to_strips`` turns lines into strips."""

    fold_thinking: bool
    open_tools: bool
    raw: bool
    styles: dict[str, Style]
    markdown: BlockStyles
    to_strips: Callable[[list[Content], int], list[Strip]]

    def style(self, name: str) -> Style:
        return self.styles.get(name, Style())


def markdown_lines(text: str, width: int, styles: BlockStyles) -> list[Content]:
    """Finished Markdown at ``width``, without the blank line after the last block."""
    lines = [line for block in parse_blocks(text) for line in block_lines(block, width, styles, highlighted=True)]
    while lines and not lines[-1].plain.strip():
        lines.pop()
    return lines


def _wrapped(text: str, width: int, style: Style) -> list[Content]:
    return Content(text).stylize(style).wrap(max(1, width)) if text else []


class Entry:
    """One thing the pane shows. ``flippable`` entries change state on a click."""

    flippable = False
    #: The view flags the entry's lines depend on (a key of the pane's cache).
    depends: tuple[str, ...] = ()
    #: The last ``strips`` left parts undrawn (blank rows stand in for them).
    partial = False

    def __init__(self, *classes: str) -> None:
        self.classes = {"entry", *classes}
        self.version = 0
        self.flipped = False

    def changed(self) -> None:
        self.version += 1

    def flip(self) -> None:
        self.flipped = not self.flipped
        self.classes ^= {"-flipped"}
        self.changed()

    def view_key(self, view: View) -> tuple[bool, ...]:
        return tuple(getattr(view, name) for name in self.depends)

    def strips(self, width: int, view: View, first: bool, rows_wanted: int | None = None) -> list[Strip]:
        """The entry's rows at ``width``. ``rows_wanted``: the rows at its end
        that must be drawn now; an entry may leave what is above undrawn."""
        return view.to_strips(self.lines(width, view, first), width)

    def lines(self, width: int, view: View, first: bool) -> list[Content]:
        raise NotImplementedError

    @property
    def plain(self) -> str:
        raise NotImplementedError


class StepHeading(Entry):
    """``▶ task_N · attempt 1 · description``, a blank line above unless it opens the pane."""

    def __init__(self, op: ops.StepOp) -> None:
        super().__init__("heading")
        self.text = f"▶ {op.task_id} · attempt {op.attempt}" + (f" · {op.description}" if op.description else "")

    def lines(self, width: int, view: View, first: bool) -> list[Content]:
        body = _wrapped(self.text, width, view.style("heading"))
        return body if first else [Content(""), *body]

    @property
    def plain(self) -> str:
        return self.text


class Notice(Entry):
    def __init__(self, op: ops.NoticeOp) -> None:
        super().__init__("notice", f"-{op.kind}")
        self.kind = op.kind
        self.text = op.text

    def lines(self, width: int, view: View, first: bool) -> list[Content]:
        return _wrapped(self.text, width, view.styles.get(f"notice-{self.kind}") or view.style("muted"))

    @property
    def plain(self) -> str:
        return self.text


class AnswerBlock(Entry):
    """An answer streamed as Markdown: finished blocks become strips once
    per width, only the open block is rendered again."""

    def __init__(self) -> None:
        super().__init__("answer")
        self.doc = MarkdownDoc()
        self._drawn = DrawnBlocks()
        self.renders = 0  # open-block renders, for tests and benches

    def append(self, text: str) -> None:
        text = clean(text)
        if text:
            self.doc.append(text)
            self.changed()

    def strips(self, width: int, view: View, first: bool, rows_wanted: int | None = None) -> list[Strip]:
        open_blocks = self.doc.split()
        finished = self.doc.finished
        drawn, other = self._drawn.at(width, len(finished))
        self.renders += 1
        open_lines = [line for block in open_blocks for line in block_lines(block, width, view.markdown)]
        tail = view.to_strips(open_lines, width)
        # Drawn from the end back: a new width (the tree hidden) needs only
        # the rows in view before its frame; the rest follows in the next.
        have, self.partial = len(tail), False
        for index in range(len(finished) - 1, -1, -1):
            if drawn[index] is None:
                if rows_wanted is not None and have >= rows_wanted:
                    self.partial = True
                    continue
                drawn[index] = view.to_strips(block_lines(finished[index], width, view.markdown, highlighted=True), width)
            have += len(drawn[index])
        rows: list[Strip] = []
        for index, block_rows in enumerate(drawn):
            if block_rows is None:
                guess = other[index] if other is not None and index < len(other) else None
                rows.extend([Strip.blank(width)] * max(1, len(guess or ())))
            else:
                rows.extend(block_rows)
        return rows + tail

    @property
    def plain(self) -> str:
        return self.doc.text


class ThoughtBlock(Entry):
    """Reasoning: dimmed, and folded to one line under the screen's fold (a click flips one)."""

    flippable = True
    depends = ("fold_thinking",)

    def __init__(self) -> None:
        super().__init__("thought")
        self.text = ""
        self.words = 0

    def append(self, text: str) -> None:
        text = clean(text)
        if text:
            self.text += text
            self.words = len(self.text.split())
            self.changed()

    def lines(self, width: int, view: View, first: bool) -> list[Content]:
        style = view.style("thought")
        if view.fold_thinking != self.flipped:
            return _wrapped(f"▸ thinking · {self.words} words (click or t to show)", width, style)
        return [line for part in self.text.split("\n") for line in (_wrapped(part, width, style) or [Content("")])]

    @property
    def plain(self) -> str:
        return self.text


class StructuredBlock(Entry):
    """A report or verdict being written: one line while it streams, the raw
    JSON only in the raw view; shown as text if it was not one after all."""

    depends = ("raw",)

    def __init__(self, what: str) -> None:
        super().__init__("structured")
        self.what = what
        self.raw = ""

    def append(self, text: str) -> None:
        self.raw += clean(text)
        self.changed()

    def settle(self) -> None:
        self.classes.add("-settled")
        self.changed()

    def release(self) -> None:
        self.classes.add("-released")
        self.changed()

    def lines(self, width: int, view: View, first: bool) -> list[Content]:
        released = "-released" in self.classes
        out = []
        if not released and "-settled" not in self.classes:
            out += _wrapped(f"… writing the {self.what} · {len(self.raw)} characters", width, view.style("muted"))
        if released or view.raw:
            out += _wrapped(self.raw, width, Style() if released else view.style("muted"))
        return out

    @property
    def plain(self) -> str:
        return self.raw


class ToolEntry(Entry):
    """``→ tool subject · ✓ summary`` on one line; its arguments and result
    below it when open (a click, or ``o`` for all)."""

    flippable = True
    depends = ("open_tools",)

    def __init__(self, op: ops.ToolOp) -> None:
        super().__init__("tool", "-running")
        self.op = op
        self.outcome = "…"
        self.state = "running"
        self.details = ""

    def finished(self, op: ops.ToolDoneOp) -> None:
        self.outcome = f"{'✓' if op.ok else '✗'} {op.summary}".rstrip()
        content = clean(op.content)
        self.details = content[:TOOL_DETAIL_CHARS] + ("…" if len(content) > TOOL_DETAIL_CHARS else "")
        self.state = "ok" if op.ok else "failed"
        self.classes = (self.classes - {"-running"}) | {f"-{self.state}"}
        self.changed()

    def _arguments(self) -> str:
        try:
            shown = json.dumps(json.loads(self.op.arguments), indent=2, ensure_ascii=False)
        except (ValueError, TypeError):
            shown = self.op.arguments
        text = f"arguments:\n{clean(shown)}"
        return f"{text}\nresult:\n{self.details}" if self.details else text

    def lines(self, width: int, view: View, first: bool) -> list[Content]:
        line = Content(self.plain).stylize(view.style(f"tool-{self.state}")).truncate(max(1, width), ellipsis=True)
        out = [line]
        if view.open_tools != self.flipped:
            muted = view.style("muted")
            for part in self._arguments().split("\n"):
                out += [Content("  ") + row for row in (_wrapped(part, width - 2, muted) or [Content("")])]
        return out

    @property
    def plain(self) -> str:
        head = f"→ {self.op.tool} {self.op.subject}".rstrip()
        return f"{head} · {self.outcome}"


def _raw_text(raw: str) -> str:
    try:
        return json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
    except (ValueError, TypeError):
        return raw


class Card(Entry):
    """A bordered box: a title in the state's colour, a subtitle, a body;
    the raw reply inside it in the raw view."""

    depends = ("raw",)

    def __init__(self, kind: str, state: str, title: str, subtitle: str, raw: str) -> None:
        super().__init__("card", kind, f"-{state}")
        self.state = state
        self.title = title
        self.subtitle = subtitle
        self.raw = raw

    def body(self, width: int, view: View) -> list[Content]:
        raise NotImplementedError

    def lines(self, width: int, view: View, first: bool) -> list[Content]:
        inner = max(1, width - 4)
        body = self.body(inner, view)
        if view.raw:
            body += _wrapped(_raw_text(self.raw), inner, view.style("muted"))
        border = view.style(f"card-{self.state}")
        title = Content(f" {self.title} ").truncate(max(0, width - 4))
        subtitle = Content(f" {self.subtitle} ").truncate(max(0, width - 4))
        top = (Content.styled("╭─", border) + title.stylize(border + view.style("card-title").without_color)
               + Content.styled("─" * max(0, width - 3 - title.cell_length) + "╮", border))
        rule = max(0, width - 3 - subtitle.cell_length)
        bottom = Content.styled("╰" + "─" * rule, border) + subtitle.stylize(view.style("muted")) + Content.styled("─╯", border)
        side = Content.styled("│", border)
        rows = []
        for row in body:
            row = row.truncate(inner)
            rows.append(side + Content(" ") + row.pad_right(inner - row.cell_length) + Content(" ") + side)
        return [top, *rows, bottom, Content("")]


class ReportCard(Card):
    """A worker's report: a status badge, the reason when it is blocked or
    invalid, the result rendered."""

    def __init__(self, op: ops.ReportOp) -> None:
        glyph = {"completed": "✓", "blocked": "■"}.get(op.status, "✗")
        super().__init__("report", op.status, f"{glyph} report · {op.status}", f"{op.step_id} · attempt {op.attempt}",
                         op.raw or op.result)
        self.op = op

    def body(self, width: int, view: View) -> list[Content]:
        op = self.op
        out: list[Content] = []
        if op.reason:
            label = "could not be read" if op.status == "invalid" else "reason"
            out += _wrapped(f"{label}: {clean(op.reason)}", width, view.style("warning"))
        if op.result and op.status != "invalid":
            out += markdown_lines(clean(op.result), width, view.markdown)
        return out

    @property
    def plain(self) -> str:
        return "\n".join(p for p in (self.title, self.op.reason, self.op.result) if p)


class VerdictCard(Card):
    """A reviewer's verdict: approved or rejected, its summary, the issues
    as a list, an approval's notes."""

    def __init__(self, op: ops.VerdictOp) -> None:
        state = "approved" if op.approved else "rejected"
        super().__init__("verdict", state, f"{'✓' if op.approved else '✗'} {state} · {op.reviewer}",
                         f"{op.step_id} · attempt {op.attempt}", op.raw)
        self.op = op

    def body(self, width: int, view: View) -> list[Content]:
        op = self.op
        out: list[Content] = []
        feedback = clean(op.feedback).strip()
        if op.summary:
            out += _wrapped(clean(op.summary), width, Style())
        if feedback and feedback != op.summary.strip():
            out += markdown_lines(feedback, width, view.markdown)
        if op.notes:
            notes = "\n".join(f"- {clean(note)}" for note in op.notes)
            muted = view.style("muted")
            out += [Content.styled("notes:", muted)]
            out += [line.stylize_before(muted) for line in markdown_lines(notes, width, view.markdown)]
        return out

    @property
    def plain(self) -> str:
        parts = [self.title, self.op.summary, self.op.feedback, *self.op.notes]
        return "\n".join(p for p in parts if p)


class CheckCard(Card):
    """A task's check: ✓/✗ with the exit and time in the title, the command,
    and its output folded like a tool's result (a click, or ``o`` for all)."""

    flippable = True
    depends = ("open_tools", "raw")

    def __init__(self, op: ops.CheckOp) -> None:
        state = "passed" if op.passed else "failed"
        super().__init__("check", state, ops.check_title(op), f"{op.task_id} · attempt {op.attempt}", "")
        self.op = op

    def body(self, width: int, view: View) -> list[Content]:
        lines = clean(self.op.output).rstrip("\n").splitlines()
        out = [Content(f"$ {clean(self.op.command)}").truncate(max(1, width), ellipsis=True)]
        muted = view.style("muted")
        if view.open_tools != self.flipped:
            for line in lines or ["(no output)"]:
                out += _wrapped(line, width, muted) or [Content("")]
        elif lines:
            out += _wrapped(f"▸ output · {len(lines)} line{'s' if len(lines) != 1 else ''} (click or o to show)",
                            width, muted)
        else:
            out += _wrapped("▸ no output", width, muted)
        return out

    @property
    def plain(self) -> str:
        return f"{self.title}\n$ {self.op.command}"
