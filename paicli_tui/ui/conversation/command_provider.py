"""paicli's slash commands in the command palette (Ctrl+P). Choosing one
runs it exactly as typing it and pressing Enter would (``MainScreen.
submit_text``); a command that needs words of its own (``/plan GOAL``)
is put into the prompt for the person to finish."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Iterator

from textual.command import DiscoveryHit, Hit, Hits, Provider

from paicli_tui.ui.conversation.slash_commands import COMMANDS, needs_argument

if TYPE_CHECKING:
    from paicli_tui.ui.conversation.main_screen import MainScreen


class SlashCommandProvider(Provider):
    def _entries(self) -> Iterator[tuple[str, str, bool]]:
        """(what the palette shows, its help, whether it runs at once)."""
        screen: "MainScreen" = self.screen  # type: ignore[assignment]
        for name, (hint, description) in COMMANDS.items():
            choices = screen.argument_choices(name)
            if choices:
                for choice in choices:
                    yield f"{name} {choice}", description, True
                continue
            if needs_argument(name):
                yield f"{name} {hint}", f"{description} (type the {hint.lower()} in the prompt)", False
            else:
                yield name, description, True

    def _command(self, text: str, runs: bool):
        screen: "MainScreen" = self.screen  # type: ignore[assignment]
        if runs:
            return partial(screen.submit_text, text)
        return partial(screen.start_typing, text.split(" ", 1)[0] + " ")

    async def discover(self) -> Hits:
        for text, description, runs in self._entries():
            yield DiscoveryHit(text, self._command(text, runs), help=description)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, description, runs in self._entries():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), self._command(text, runs), help=description)
