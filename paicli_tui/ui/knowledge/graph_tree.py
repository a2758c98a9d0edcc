"""A symbol's code graph as a tree: where it is defined, who calls it, what
it calls, who imports its module, who else mentions it. A node that names
another symbol (a caller, a callee) carries it, so the screen can follow it."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.widgets import Tree

from paicli_tui.knowledge.codeindex.graph import SymbolGraph


class GraphTree(Tree[str]):
    COMPONENT_CLASSES = Tree.COMPONENT_CLASSES | {"graph-tree--heading", "graph-tree--path", "graph-tree--muted"}
    DEFAULT_CSS = """
    GraphTree {
        & > .graph-tree--heading { color: $accent; text-style: bold; }
        & > .graph-tree--path { color: $primary; }
        & > .graph-tree--muted { color: $text-muted; }
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.graph: SymbolGraph | None = None
        self.show_root = True
        self.guide_depth = 3

    def show(self, graph: SymbolGraph) -> None:
        self.graph = graph
        self._rebuild()

    def _style(self, name: str) -> Style:
        # Not partial: $text-muted has alpha, blended only against a background.
        return self.get_component_rich_style(f"graph-tree--{name}", partial=False)

    def _line(self, path: str, where: str, rest: str = "", muted: str = "") -> Text:
        # Text(x, style) would style everything appended too: style each part.
        text = Text()
        text.append(f"{path}:{where}", self._style("path"))
        if rest:
            text.append(f"  {rest}")
        if muted:
            text.append(f"  {muted}", self._style("muted"))
        return text

    def _rebuild(self) -> None:
        graph = self.graph
        self.clear()
        if graph is None:
            return
        self.root.set_label(Text.assemble((graph.symbol, self._style("heading"))))
        self.root.data = None
        self.root.expand()
        defined = self._branch(f"defined in ({len(graph.definitions)})", graph.definitions, "nowhere in the index")
        for d in graph.definitions:
            defined.add_leaf(self._line(d.path, f"{d.start_line}-{d.end_line}", d.qualified, d.kind), data=d.qualified)
        callers = self._branch(f"called by ({len(graph.callers)})", graph.callers, "no call found")
        for s in graph.callers:
            callers.add_leaf(self._line(s.path, str(s.line), f"in {s.label}" if s.label else "", "" if s.label else "module level"),
                             data=s.label or None)
        calls = self._branch(f"calls ({len(graph.callees)})", graph.callees, "nothing")
        for callee in graph.callees:
            label = Text(callee.name)
            label.append(f"  line {callee.line}", self._style("muted"))
            if callee.defined_at:
                where = ", ".join(f"{s.path}:{s.line}" for s in callee.defined_at)
                label.append(f"  → {where}", self._style("path"))
            else:
                label.append("  (not defined in the index)", self._style("muted"))
            calls.add_leaf(label, data=callee.name)
        importers = self._branch(f"imported by ({len(graph.importers)})", graph.importers, "no import found")
        for s in graph.importers:
            importers.add_leaf(self._line(s.path, str(s.line), s.label))
        mentioned = self._branch(f"mentioned in ({len(graph.references)})", graph.references, "nowhere else")
        for s in graph.references:
            mentioned.add_leaf(self._line(s.path, str(s.line), "", s.label))

    def _branch(self, title: str, items: list, empty: str):
        label = Text.assemble((title, self._style("heading")))
        if not items:
            label.append(f"  {empty}", self._style("muted"))
            return self.root.add(label, expand=False, allow_expand=False)
        return self.root.add(label, expand=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.graph is not None:  # labels hold resolved colours: rebuild them for the new theme
            self._rebuild()
