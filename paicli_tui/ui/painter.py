"""Applies one frame's worth of drained items to the main screen's transcript.

Text runs are gathered per stream and written once per widget at the end of
the pass (the coalescing of P-7.6); entries are still created in the order
their first fragment arrived, and a model call's streams are closed only
after its last text is written."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from paicli_tui import events as ev
from paicli_tui.ui.event_lines import describe
from paicli_tui.ui.event_pump import TextRun
from paicli_tui.ui.widgets.transcript import StreamKey, Transcript


@dataclass
class FrameSummary:
    """What the screen must refresh besides the transcript."""

    usage_changed: bool = False
    mode: str | None = None
    other: list[Any] = field(default_factory=list)


class TranscriptPainter:
    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        # Actors whose answer was streamed this turn: their AgentFinished
        # text is already on screen.
        self._spoke: set[str] = set()

    async def paint(self, items: list[Any]) -> FrameSummary:
        summary = FrameSummary()
        texts: dict[StreamKey, list[str]] = {}
        closing: list[tuple[str, str | None]] = []
        t = self.transcript
        for item in items:
            if isinstance(item, TextRun):
                if item.kind == "tool_call":
                    continue  # ToolCallStarted follows with the whole arguments
                if item.kind == "content":
                    self._spoke.add(item.actor)
                await t.stream_entry(item.key)
                texts.setdefault(item.key, []).append(item.text)
                continue
            if not isinstance(item, ev.Event):
                summary.other.append(item)
                continue
            match item:
                case ev.ModelResponse():
                    summary.usage_changed = True
                    closing.append((item.actor, item.call_id))
                case ev.ModelError():
                    closing.append((item.actor, item.call_id))
                case ev.ModeChanged():
                    summary.mode = item.mode
                case ev.ToolCallStarted():
                    await t.tool_started(item.actor, item.call_id, item.tool, item.arguments)
                case ev.ToolCallFinished():
                    await t.tool_finished(item.actor, item.call_id, item.tool, item.ok, item.summary, item.content)
                case ev.AgentFinished():
                    closing.append((item.actor, None))
                    if item.status == "final" and item.text and item.actor not in self._spoke:
                        key = (item.actor, "final", "content")
                        await t.stream_entry(key)
                        texts.setdefault(key, []).append(item.text)
                    self._spoke.discard(item.actor)
            line = describe(item)
            if line is not None:
                await t.add_line(line.text, line.kind)
        for key, parts in texts.items():
            await t.write(key, "".join(parts))
        for actor, call_id in closing:
            await t.finish_call(actor, call_id)
        return summary
