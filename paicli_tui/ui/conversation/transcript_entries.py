"""The pieces a transcript is made of: the person's input, one line per tool
call, notes, and the planner's one-line progress. Streamed answers and
reasoning are in ``transcript_answers``."""

from __future__ import annotations

from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Collapsible, Static

from paicli_tui.present.event_lines import argument_subject, full_arguments

TOOL_RESULT_CHARS = 4_000


class UserEntry(Static):
    """What the person typed."""

    def __init__(self, text: str) -> None:
        super().__init__(Content.assemble(("› ", "bold"), text))


class NoteLine(Static):
    """A one-line fact: an error, a retry, a plan step, a decision."""

    def __init__(self, text: str, kind: str = "info") -> None:
        super().__init__(Content(text), classes=f"-{kind}")


class PlanningLine(Static):
    """One line while the planner works: a spinner and how much it wrote.
    Its text is not streamed here: plans are structured replies the plan
    lines and the review screen already show."""

    FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
    SPIN_SECONDS = 0.1

    def __init__(self, actor: str = "planner") -> None:
        super().__init__(classes="-muted")
        self.actor = actor
        self.chars = 0
        self._frame = 0

    def on_mount(self) -> None:
        self._show()
        self.set_interval(self.SPIN_SECONDS, self._spin, name="planning-spinner")

    def wrote(self, chars: int) -> None:
        self.chars += chars
        self._show()

    def _spin(self) -> None:
        top = self.app.screen
        if top is not self.screen and not isinstance(top, ModalScreen):
            # Covered (a replan under the run screen): a repaint down here
            # would repaint the whole screen on top.
            return
        self._frame = (self._frame + 1) % len(self.FRAMES)
        self._show()

    def _show(self) -> None:
        count = f" · {self.chars:,} characters" if self.chars else ""
        self.update(Content(f"{self.FRAMES[self._frame]} {self.actor}: planning…{count}"))


class ToolEntry(Collapsible):
    """One compact line per tool call; expands to the arguments and result."""

    def __init__(self, actor: str, tool: str, arguments: str) -> None:
        self.actor = actor
        self.tool = tool
        self.arguments = arguments
        self.details = Static(Content(full_arguments(arguments)), classes="tool-details")
        super().__init__(self.details, title=self._heading("…", ""), collapsed=True)
        self.add_class("-running")

    def _heading(self, mark: str, summary: str) -> Content:
        who = "" if self.actor == "react" else f"{self.actor} "
        subject = argument_subject(self.arguments)
        parts = [f"{who}{mark} {self.tool}"]
        if subject:
            parts.append(subject)
        if summary:
            parts.append(f"— {summary}")
        return Content(" ".join(parts))

    def finished(self, ok: bool, summary: str, content: str) -> None:
        self.remove_class("-running")
        self.add_class("-ok" if ok else "-failed")
        self.title = self._heading("✓" if ok else "✗", " ".join(summary.split()))
        if len(content) > TOOL_RESULT_CHARS:
            content = content[:TOOL_RESULT_CHARS] + f"\n… {len(content) - TOOL_RESULT_CHARS:,} more characters"
        text = full_arguments(self.arguments)
        self.details.update(Content(f"{text}\n\n{content}" if content else text))
