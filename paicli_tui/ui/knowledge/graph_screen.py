"""/graph SYMBOL: the code graph of a symbol as a tree. Enter on a caller or
callee follows it; Backspace goes back; Esc closes."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static, Tree

from paicli_tui.knowledge.codeindex.graph import SymbolGraph
from paicli_tui.ui.knowledge.calls import off_thread
from paicli_tui.ui.knowledge.graph_tree import GraphTree

HINT = "enter follow a caller or callee · backspace back · esc close — links are by name, as parsed"


class GraphScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_name("knowledge.tcss")

    BINDINGS = [
        Binding("escape,q", "close", "Close the code graph", id="graph.close"),
        Binding("backspace", "back", "Back to the symbol before", id="graph.back"),
    ]

    def __init__(self, knowledge, symbol: str) -> None:
        super().__init__()
        self.knowledge = knowledge
        self.symbol = symbol
        self.history: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="knowledge-dialog", classes="tall"):
            yield Static(id="knowledge-title")
            yield GraphTree(id="graph-tree")
            yield Static(Content.styled(HINT, "$text-muted"), id="knowledge-hint")

    async def on_mount(self) -> None:
        await self.show_symbol(self.symbol)

    async def show_symbol(self, symbol: str) -> None:
        self.symbol = symbol
        title = self.query_one("#knowledge-title", Static)
        title.update(Content.assemble(Content.styled("Code graph  ", "bold"), symbol))
        graph = await off_thread(self, self.knowledge.graph, symbol) or SymbolGraph(symbol)
        tree = self.query_one(GraphTree)
        tree.show(graph)
        if not graph.found:
            files = await off_thread(self, self.knowledge.index_files) or 0
            note = (f"{symbol!r} is not defined, called or mentioned in the {files} indexed files" if files
                    else "there is no code index yet: /index builds it")
            title.update(Content.assemble(Content.styled("Code graph  ", "bold"), Content.styled(note, "$warning")))
        tree.focus()

    async def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        event.stop()
        target = event.node.data
        if target and target != self.symbol:
            self.history.append(self.symbol)
            await self.show_symbol(target)

    async def action_back(self) -> None:
        if self.history:
            await self.show_symbol(self.history.pop())

    def action_close(self) -> None:
        self.dismiss(None)
