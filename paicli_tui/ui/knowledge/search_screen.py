"""/search QUERY: ranked chunks from the code index, each with path, line
range and symbol, and the highlighted chunk's code below. Enter on a
result opens the graph of its symbol; Esc closes."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from paicli_tui.knowledge.codeindex.search import CodeHit
from paicli_tui.ui.knowledge.calls import off_thread

HINT = "enter graph of the symbol · tab results/query · esc close"
#: Lines of the highlighted chunk shown below the results.
PREVIEW_LINES = 40


class SearchScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_name("knowledge.tcss")

    BINDINGS = [Binding("escape", "close", "Close the code search", id="search.close")]

    def __init__(self, knowledge, query: str = "") -> None:
        super().__init__()
        self.knowledge = knowledge
        self.query_text = query
        self.hits: list[CodeHit] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="knowledge-dialog", classes="tall"):
            yield Static(Content.styled("Search code", "bold"), id="knowledge-title")
            yield Input(self.query_text, placeholder="words, identifiers or a question", id="search-query")
            yield OptionList(id="search-results")
            with VerticalScroll(id="search-preview-box"):
                yield Static(id="search-preview")
            yield Static(Content.styled(HINT, "$text-muted"), id="knowledge-hint")

    async def on_mount(self) -> None:
        if self.query_text.strip():
            await self.run_search(self.query_text)
            self.query_one("#search-results", OptionList).focus()
        else:
            self.query_one("#search-query", Input).focus()

    async def run_search(self, query: str) -> None:
        self.query_text = query
        results = self.query_one("#search-results", OptionList)
        results.clear_options()
        self.hits = await off_thread(self, self.knowledge.search_code, query, limit=20) or []
        if not self.hits:
            files = await off_thread(self, self.knowledge.index_files) or 0
            why = f"nothing in the {files} indexed files matches" if files else "there is no code index yet: /index builds it"
            results.add_option(Option(Content.styled(why, "italic $text-muted"), disabled=True))
            self._preview(None)
            return
        for number, hit in enumerate(self.hits, start=1):
            results.add_option(Option(_row(number, hit), id=str(number - 1)))
        results.highlighted = 0
        self._preview(self.hits[0])

    def _preview(self, hit: CodeHit | None) -> None:
        preview = self.query_one("#search-preview", Static)
        if hit is None:
            preview.update("")
            return
        lines = hit.body.splitlines()[:PREVIEW_LINES]
        width = len(str(hit.start_line + len(lines)))
        parts = [Content.styled(f"{hit.location()}\n", "bold $primary")]
        for offset, line in enumerate(lines):
            parts.append(Content.styled(f"{hit.start_line + offset:>{width}} │ ", "$text-muted"))
            parts.append(Content(line + "\n"))
        preview.update(Content.assemble(*parts))

    @on(Input.Submitted, "#search-query")
    async def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            await self.run_search(event.value)
            self.query_one("#search-results", OptionList).focus()

    @on(OptionList.OptionHighlighted, "#search-results")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self._preview(self.hits[int(event.option.id)])

    @on(OptionList.OptionSelected, "#search-results")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        hit = self.hits[int(event.option.id)] if event.option.id is not None else None
        if hit is not None and hit.symbol:
            from paicli_tui.ui.knowledge.graph_screen import GraphScreen

            self.app.push_screen(GraphScreen(self.knowledge, hit.symbol))

    def action_close(self) -> None:
        self.dismiss(None)


def _row(number: int, hit: CodeHit) -> Content:
    parts = [Content.styled(f"{number:>2}. ", "$text-muted"), Content.styled(hit.location(), "bold")]
    if hit.symbol:
        parts += [Content("  "), Content.styled(hit.symbol, "$accent")]
    parts.append(Content.styled(f" ({hit.kind})", "$text-muted"))
    if hit.stale:
        parts.append(Content.styled("  changed since indexed", "$warning"))
    return Content.assemble(*parts)
