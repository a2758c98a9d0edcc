"""What each approval mode means, in the words the main screen uses: the
muted line a mode change leaves in the transcript and the input's
placeholder, which says what Enter will do. Pure text."""

from __future__ import annotations

#: mode → what it does, one short clause (P-6.5).
MODE_SUMMARIES = {
    "auto": "tools run; a command is risk-checked first",
    "plan": "the planner writes a task graph first",
    "ask": "writes, edits and commands ask first",
}


def mode_line(mode: str) -> str:
    """``mode: ask — writes, edits and commands ask first``"""
    summary = MODE_SUMMARIES.get(mode)
    return f"mode: {mode} — {summary}" if summary else f"mode: {mode}"


def placeholder_for(mode: str, busy: bool = False) -> str:
    """The input's placeholder: what Enter does now."""
    if busy:
        return "Enter queues it for when the turn ends · Esc cancels the turn"
    summary = MODE_SUMMARIES.get(mode, "")
    return f"Enter to send · {mode} mode: {summary}" if summary else "Enter to send · /help for commands"
