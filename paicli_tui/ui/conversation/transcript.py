"""The scrolling transcript of the main screen. It keeps a bounded number of
entries, knows which streamed entry belongs to which model call, and holds
the planner's progress line while it plans.

It takes focus as one stop of the Tab order (its entries do not: a Tab
through every tool call was a trap); focused, its own keys scroll, copy and
unfold, and typing goes back to the input with the key."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import Collapsible

from paicli_tui.ui.conversation.transcript_entries import NoteLine, PlanningLine, ToolEntry, UserEntry

if TYPE_CHECKING:
    from paicli_tui.ui.conversation.transcript_answers import AnswerEntry, FoldingEntry

MAX_ENTRIES = 400

StreamKey = tuple[str, str, str]  # actor, model call id, delta kind


class Transcript(VerticalScroll, can_focus=True, can_focus_children=False):
    """Entries in order, oldest dropped beyond ``max_entries``."""

    BINDINGS = [
        Binding("y,ctrl+shift+c", "copy", "Copy the selection, else the last answer", id="transcript.copy"),
        Binding("e", "toggle_details", "Unfold / fold every tool call and thought", id="transcript.toggle_details"),
    ]

    #: Entries arrived below while the person had scrolled up (the "new below" marker shows).
    new_below: var[bool] = var(False)

    def __init__(self, max_entries: int = MAX_ENTRIES, **kwargs) -> None:
        super().__init__(**kwargs)
        self.max_entries = max_entries
        self._streams: dict[StreamKey, AnswerEntry | FoldingEntry] = {}
        self._tools: dict[tuple[str, str], ToolEntry] = {}
        self._planning: PlanningLine | None = None

    def on_mount(self) -> None:
        self.anchor()

    @property
    def following(self) -> bool:
        """Whether new entries scroll into view. Scrolling up releases
        Textual's anchor (private state; textual is pinned at 8.2.8)."""
        return self.is_anchored and not self._anchor_released

    def follow(self) -> None:
        """Back to the end, following new entries again."""
        self.scroll_end(animate=False, immediate=True)
        self.new_below = False

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.new_below and new_value >= self.max_scroll_y:
            self.new_below = False

    def on_key(self, event: events.Key) -> None:
        """A printable key typed here goes to the input, and so does focus."""
        if not event.is_printable or event.key in {"y", "e"}:
            return
        prompt = getattr(self.screen, "prompt", None)
        if prompt is None:
            return
        event.stop()
        event.prevent_default()
        prompt.focus()
        prompt.post_message(events.Key(event.key, event.character))

    def action_copy(self) -> None:
        text = self.screen.get_selected_text()
        what = "the selection"
        if not text:
            painter = getattr(self.screen, "painter", None)
            text, what = (painter.last_answer if painter is not None else ""), "the last answer"
        if not text:
            self.notify("nothing to copy: select text with the mouse, or wait for an answer", timeout=3)
            return
        self.app.copy_to_clipboard(text)
        self.notify(f"copied {what} ({len(text):,} characters)", timeout=3)

    def action_toggle_details(self) -> None:
        folds = list(self.query_children(Collapsible))
        unfold = any(fold.collapsed for fold in folds)
        for fold in folds:
            fold.collapsed = not unfold

    async def add(self, entry: Widget) -> None:
        if not self.following and self.max_scroll_y > 0:
            self.new_below = True
        await self.mount(entry)
        excess = len(self.children) - self.max_entries
        if excess > 0:
            old = list(self.children[:excess])
            await self._forget(old)
            await self.remove_children(old)

    async def add_user(self, text: str) -> None:
        """What the person sent: they acted, so the transcript follows again."""
        await self.add(UserEntry(text))
        self.follow()

    async def add_line(self, text: str, kind: str = "info") -> None:
        await self.add(NoteLine(text, kind))

    async def add_answer(self, text: str, title: str = "answer") -> AnswerEntry:
        """A run's answer, complete, rendered as Markdown under ``title``."""
        from paicli_tui.ui.conversation.transcript_answers import AnswerEntry

        entry = AnswerEntry(title)
        await self.add(entry)
        entry.body.write(text)
        await entry.body.finish()
        return entry

    async def stream_entry(self, key: StreamKey) -> AnswerEntry | FoldingEntry:
        entry = self._streams.get(key)
        if entry is None:
            from paicli_tui.ui.conversation.transcript_answers import AnswerEntry, ReasoningEntry

            actor, _call, kind = key
            entry = ReasoningEntry(actor) if kind == "reasoning" else AnswerEntry(actor)
            self._streams[key] = entry
            await self.add(entry)
        return entry

    async def write(self, key: StreamKey, text: str) -> None:
        entry = await self.stream_entry(key)
        entry.body.write(text)

    async def finish_call(self, actor: str, call_id: str | None = None) -> None:
        """The model call ended (or, with no call id, the actor's turn did):
        close its streams and fold its reasoning."""
        for key in [k for k in self._streams if k[0] == actor and (call_id is None or k[1] == call_id)]:
            await self._streams.pop(key).finish()

    def has_stream(self, actor: str, kind: str = "content") -> bool:
        return any(k[0] == actor and k[2] == kind for k in self._streams)

    async def planning(self, actor: str, chars: int = 0) -> PlanningLine:
        """Show (or advance) the planner's progress line."""
        line = self._planning
        if line is None or not line.is_attached:
            line = self._planning = PlanningLine(actor)
            await self.add(line)
        if chars:
            line.wrote(chars)
        return line

    async def planning_done(self) -> None:
        """The planner's call ended: its plan (or error) line says the rest."""
        line, self._planning = self._planning, None
        if line is not None and line.is_attached:
            await line.remove()

    async def tool_started(self, actor: str, call_id: str, tool: str, arguments: str) -> None:
        entry = ToolEntry(actor, tool, arguments)
        self._tools[(actor, call_id)] = entry
        await self.add(entry)

    async def tool_finished(self, actor: str, call_id: str, tool: str, ok: bool, summary: str, content: str) -> None:
        entry = self._tools.pop((actor, call_id), None)
        if entry is None:  # started before the transcript was cleared or trimmed
            entry = ToolEntry(actor, tool, "")
            await self.add(entry)
        entry.finished(ok, summary, content)

    async def clear(self) -> None:
        for entry in list(self._streams.values()):
            await entry.body.finish()
        self._streams.clear()
        self._tools.clear()
        self._planning = None
        await self.remove_children()

    async def _forget(self, removed: list[Widget]) -> None:
        gone = set(map(id, removed))
        for entry in [v for v in self._streams.values() if id(v) in gone]:
            await entry.body.finish()
        self._streams = {k: v for k, v in self._streams.items() if id(v) not in gone}
        self._tools = {k: v for k, v in self._tools.items() if id(v) not in gone}
