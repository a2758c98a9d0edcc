"""Applies one frame's worth of drained items to the main screen's transcript.

Only the ReAct agent (``react``) streams into the transcript, as growing
Markdown. Plan and team sub-agents (``task_N``, ``worker-N``, reviewers)
stream into the run screen's panes; here they get one line per dispatch,
status or verdict at most. The planner shows a one-line spinner with a
character count while it works: re-parsing its JSON as Markdown every frame
cost more than everything else on screen.

Text runs are gathered per stream and written once per widget at the end of
the pass (the coalescing of P-7.6); entries are still created in the order
their first fragment arrived, and a model call's streams are closed only
after its last text is written."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from paicli_tui import events as ev
from paicli_tui.present.event_lines import describe
from paicli_tui.ui.bridge.pump_items import TextRun
from paicli_tui.ui.conversation.task_results import TaskResults
from paicli_tui.ui.conversation.transcript import StreamKey, Transcript

#: The one actor whose text streams into the transcript.
STREAMED = "react"
PLANNER = "planner"


@dataclass
class FrameSummary:
    """What the screen must refresh besides the transcript."""

    usage_changed: bool = False
    mode: str | None = None
    prices: dict | None = None
    other: list[Any] = field(default_factory=list)


class TranscriptPainter:
    def __init__(self, transcript: Transcript, *, replay: bool = False) -> None:
        self.transcript = transcript
        #: A replay shows each recorded request as the person's own entry (live, the editor already did).
        self.replay = replay
        # Whether the ReAct agent's answer was streamed this turn: its
        # AgentFinished text is then already on screen.
        self._spoke = False
        #: The latest run's answer in full (what /copy copies), "" before any.
        self.last_answer = ""
        self.task_results = TaskResults()

    async def paint(self, items: list[Any]) -> FrameSummary:
        summary = FrameSummary()
        texts: dict[StreamKey, list[str]] = {}
        closing: list[str | None] = []
        planned = 0
        t = self.transcript
        for item in items:
            if isinstance(item, TextRun):
                if item.actor == STREAMED and item.kind != "tool_call":  # ToolCallStarted has the whole call
                    self._spoke = self._spoke or item.kind == "content"
                    await t.stream_entry(item.key)
                    texts.setdefault(item.key, []).append(item.text)
                elif item.actor == PLANNER:
                    planned += len(item.text)
                    await t.planning(item.actor)
                continue
            if not isinstance(item, ev.Event):
                summary.other.append(item)
                continue
            ours = item.actor == STREAMED
            if self.replay and isinstance(item, ev.RunRequested) and item.goal:
                await t.add_user(item.goal if item.kind == "react" else f"/{item.kind} {item.goal}")
            match item:
                case ev.ModelRequest() if item.actor == PLANNER:
                    await t.planning(item.actor)
                case ev.ModelResponse() | ev.ModelError() | ev.ModelCallCancelled():
                    summary.usage_changed = summary.usage_changed or isinstance(item, ev.ModelResponse)
                    if ours:
                        closing.append(item.call_id)
                    elif item.actor == PLANNER:
                        await t.planning(item.actor, planned)
                        planned = 0
                        await t.planning_done()
                case ev.ModeChanged():
                    summary.mode = item.mode
                case ev.RunRequested() if item.prices:
                    summary.prices = item.prices
                case ev.ToolCallStarted() if ours:
                    await t.tool_started(item.actor, item.call_id, item.tool, item.arguments)
                case ev.ToolCallFinished() if ours:
                    await t.tool_finished(item.actor, item.call_id, item.tool, item.ok, item.summary, item.content)
                case ev.AgentFinished() if ours:
                    closing.append(None)
                    if item.status in ("final", "partial") and item.text.strip():
                        self.last_answer = item.text
                    if item.status == "final" and item.text and not self._spoke:
                        key = (item.actor, "final", "content")
                        await t.stream_entry(key)
                        texts.setdefault(key, []).append(item.text)
                    self._spoke = False
            self.task_results.note(item)
            line = describe(item)
            if line is not None and isinstance(item, ev.RunFinished):
                for entry in self.task_results.entries(line.text, line.kind):
                    await t.add(entry)
            elif line is not None:
                await t.add_line(line.text, line.kind)
            if isinstance(item, ev.RunFinished) and item.answer:
                # The summary previews each task; the answer is shown whole.
                self.last_answer = item.answer
                await t.add_answer(item.answer)
        if planned:
            await t.planning(PLANNER, planned)
        for key, parts in texts.items():
            await t.write(key, "".join(parts))
        for call_id in closing:
            await t.finish_call(STREAMED, call_id)
        return summary
