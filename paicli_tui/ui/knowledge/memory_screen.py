"""/memory: the facts saved for this workspace, newest first; type to
search them, delete the highlighted one. /save FACT adds one. Facts agents
saved in auto mode wait at the top for the person's yes: k keeps one, d
drops it; until then no agent is shown them."""

from __future__ import annotations

import time
from pathlib import Path

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from paicli_tui.ui.knowledge.calls import off_thread

HINT = "type to search · down to the list · k keep a waiting fact · d delete · esc close — /save FACT adds one"


class MemoryScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_name("knowledge.tcss")

    BINDINGS = [
        Binding("escape", "close", "Close memory", id="memory.close"),
        Binding("d,delete", "delete", "Delete the highlighted fact", id="memory.delete"),
        Binding("k", "keep", "Keep the highlighted waiting fact", id="memory.keep"),
        Binding("down", "to_list", "From the search box to the facts", show=False, id="memory.to_list"),
    ]

    def __init__(self, knowledge) -> None:
        super().__init__()
        self.knowledge = knowledge
        self.facts: list = []

    def compose(self) -> ComposeResult:
        with Vertical(id="knowledge-dialog"):
            yield Static(Content.styled("Memory", "bold"), id="knowledge-title")
            yield Input(placeholder="search the facts", id="memory-filter", select_on_focus=False)
            yield OptionList(id="memory-list")
            yield Static(Content.styled(HINT, "$text-muted"), id="knowledge-hint")

    def on_mount(self) -> None:
        # The screen shows at once; the database opens (and may migrate) off the first frame.
        self.query_one("#memory-list", OptionList).add_option(
            Option(Content.styled("loading the facts…", "italic $text-muted"), disabled=True))
        self.query_one("#memory-filter", Input).focus()
        self.run_worker(self.refresh_facts(), group="memory-facts", exclusive=True)

    async def refresh_facts(self) -> None:
        query = self.query_one("#memory-filter", Input).value.strip()
        memory = self.knowledge.memory
        if query:
            found = await off_thread(self, memory.search, query, 50)
        else:
            found = [*(await off_thread(self, memory.pending) or []), *(await off_thread(self, memory.recent) or [])]
        self.facts = found or []
        options = self.query_one("#memory-list", OptionList)
        highlighted = options.highlighted
        options.clear_options()
        if not self.facts:
            empty = "no fact matches" if query else "nothing saved yet: /save FACT keeps one, and agents save with save_memory"
            options.add_option(Option(Content.styled(empty, "italic $text-muted"), disabled=True))
            return
        for index, fact in enumerate(self.facts):
            options.add_option(Option(_row(fact), id=str(index)))
        options.highlighted = min(highlighted or 0, len(self.facts) - 1)

    @on(Input.Changed, "#memory-filter")
    async def _filter(self, event: Input.Changed) -> None:
        await self.refresh_facts()

    @on(Input.Submitted, "#memory-filter")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_to_list()

    def action_to_list(self) -> None:
        if self.facts:  # an empty list would swallow what is typed next
            self.query_one("#memory-list", OptionList).focus()

    def on_key(self, event: events.Key) -> None:
        """A character typed while the list has focus goes to the search
        box ("d" deletes the highlighted fact and "k" keeps it instead)."""
        options = self.query_one("#memory-list", OptionList)
        if not options.has_focus or not event.is_printable or not event.character:
            return
        if event.character in ("d", "k") and self.facts:
            return
        event.stop()
        event.prevent_default()
        search = self.query_one("#memory-filter", Input)
        search.focus()
        search.insert_text_at_cursor(event.character)

    async def action_delete(self) -> None:
        options = self.query_one("#memory-list", OptionList)
        if not options.has_focus or options.highlighted is None or options.highlighted >= len(self.facts):
            return
        fact = self.facts[options.highlighted]
        if await off_thread(self, self.knowledge.delete_fact, fact.id):
            self.notify(f"deleted fact {fact.id}", markup=False)
        await self.refresh_facts()

    async def action_keep(self) -> None:
        options = self.query_one("#memory-list", OptionList)
        if not options.has_focus or options.highlighted is None or options.highlighted >= len(self.facts):
            return
        fact = self.facts[options.highlighted]
        if fact.status != "pending":
            self.notify(f"fact {fact.id} is already kept", markup=False)
            return
        if await off_thread(self, self.knowledge.keep_fact, fact.id):
            self.notify(f"kept fact {fact.id}", markup=False)
        await self.refresh_facts()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        # "d" and "k" type into the search box; they act only on the list.
        if action in ("delete", "keep"):
            return self.query_one("#memory-list", OptionList).has_focus
        return True

    def action_close(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()


def _row(fact) -> Content:
    when = time.strftime("%Y-%m-%d", time.localtime(fact.created))
    return Content.assemble(
        Content.styled(f"{fact.id:>4}  ", "bold"),
        Content.styled("waiting for your yes  ", "bold $warning") if fact.status == "pending" else "",
        Content.styled(f"{when}  ", "$text-muted"),
        Content.styled(f"{fact.provenance()}  ", "$accent" if fact.source == "person" else "$secondary"),
        fact.text,
    )
