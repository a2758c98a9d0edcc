"""The input line: history on up/down and slash-command completion."""

from __future__ import annotations

from typing import Callable, Iterable

from textual.binding import Binding
from textual.suggester import Suggester
from textual.widgets import Input

from paicli_tui.ui.conversation.slash_commands import complete

MAX_HISTORY = 500

ArgumentChoices = Callable[[str], Iterable[str]]


class SlashSuggester(Suggester):
    """Suggests the rest of a slash command or of its argument."""

    def __init__(self, argument_choices: ArgumentChoices) -> None:
        # No cache: the theme list can change while the app runs.
        super().__init__(use_cache=False, case_sensitive=True)
        self.argument_choices = argument_choices

    async def get_suggestion(self, value: str) -> str | None:
        return complete(value, self.argument_choices)


class PromptInput(Input):
    """One line of input. Submitted lines are kept for up/down."""

    BINDINGS = [
        Binding("up", "history_back", "Previous input", show=False, id="prompt.history_back"),
        Binding("down", "history_forward", "Next input", show=False, id="prompt.history_forward"),
        Binding("tab", "complete", "Complete", show=False, id="prompt.complete"),
    ]

    def __init__(self, argument_choices: ArgumentChoices, **kwargs) -> None:
        super().__init__(suggester=SlashSuggester(argument_choices), **kwargs)
        self.argument_choices = argument_choices
        self.history: list[str] = []
        self._position = 0  # == len(history) when not browsing
        self._draft = ""

    def show_busy(self, busy: bool) -> None:
        """Say on the input's border that a turn is running and Esc stops it."""
        title = "● working · esc cancels" if busy else None
        # Setting a border title always repaints, and a repaint of the main
        # screen under the run screen repaints all of the run screen: only
        # when it changes.
        if (self.border_title or None) != title:
            self.border_title = title

    def remember(self, line: str) -> None:
        line = line.strip()
        if line and (not self.history or self.history[-1] != line):
            self.history.append(line)
            del self.history[:-MAX_HISTORY]
        self._position = len(self.history)
        self._draft = ""

    def action_history_back(self) -> None:
        if self._position == 0:
            return
        if self._position == len(self.history):
            self._draft = self.value
        self._position -= 1
        self._show(self.history[self._position])

    def action_history_forward(self) -> None:
        if self._position >= len(self.history):
            return
        self._position += 1
        self._show(self.history[self._position] if self._position < len(self.history) else self._draft)

    def action_complete(self) -> None:
        completion = complete(self.value, self.argument_choices)
        if completion is None:
            self.screen.focus_next()
            return
        self._show(completion)

    def _show(self, value: str) -> None:
        self.value = value
        self.cursor_position = len(value)
