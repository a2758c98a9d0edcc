"""What a worker pane is told to show, as plain data (no Textual).

The run model turns one frame's events into a list of these per worker
(``pane_feed.py``); the pane turns each into an entry (a heading, a Markdown
block, a dimmed thought, a one-line tool call, a report or verdict card, a
notice). Streamed text arrives as ``TextOp``s of numbered blocks.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TextOp:
    block: int
    kind: str  # content | reasoning | report | verdict (a structured reply being written)
    text: str


@dataclass(frozen=True)
class ReleaseOp:
    """A structured block was ordinary text after all (the reply went on to
    call tools): show it as text."""

    block: int


@dataclass(frozen=True)
class StepOp:
    task_id: str
    attempt: int
    description: str


@dataclass(frozen=True)
class ToolOp:
    call_id: str
    tool: str
    subject: str
    arguments: str


@dataclass(frozen=True)
class ToolDoneOp:
    call_id: str
    ok: bool
    summary: str
    content: str


@dataclass(frozen=True)
class ReportOp:
    step_id: str
    attempt: int
    status: str  # completed | blocked | invalid
    result: str
    reason: str
    raw: str = ""
    block: int = -1  # the structured block it was read from, if any


@dataclass(frozen=True)
class VerdictOp:
    reviewer: str
    step_id: str
    attempt: int
    approved: bool
    summary: str
    feedback: str
    notes: tuple[str, ...] = ()
    raw: str = ""
    block: int = -1


@dataclass(frozen=True)
class CheckOp:
    """A task's check ran: passed or failed, its command, time and output."""

    task_id: str
    attempt: int
    command: str
    passed: bool
    ended: str  # exit 0 | exit 3 | timed out | cancelled | could not start
    duration_s: float
    output: str


def check_title(op: CheckOp) -> str:
    glyph, state = ("✓", "passed") if op.passed else ("✗", "failed")
    return f"{glyph} check {state} · {op.ended} · {op.duration_s:.1f} s"


@dataclass(frozen=True)
class NoticeOp:
    kind: str  # review | retry | completed | failed | blocked | cancelled | skipped | warning | error
    text: str


PaneOp = TextOp | ReleaseOp | StepOp | ToolOp | ToolDoneOp | ReportOp | VerdictOp | CheckOp | NoticeOp


def op_text(op: PaneOp) -> str:
    """What an op says as plain text: a stream's text as it came, anything
    else one line (tests compare panes by it; a live run and its replay
    must say the same)."""
    match op:
        case TextOp():
            return op.text
        case StepOp():
            return f"▶ {op.task_id} · attempt {op.attempt} · {op.description}\n"
        case ToolOp():
            return f"→ {op.tool} {op.subject}".rstrip() + "\n"
        case ToolDoneOp():
            return f"  {'✓' if op.ok else '✗'} {op.summary}\n"
        case ReportOp():
            return f"report ({op.status}): {op.reason or op.result}\n"
        case VerdictOp():
            return f"✓ approved by {op.reviewer}\n" if op.approved else f"✗ rejected by {op.reviewer}: {op.feedback}\n"
        case CheckOp():
            return f"{check_title(op)} · $ {op.command}\n"
        case NoticeOp():
            return op.text + "\n"
    return ""
