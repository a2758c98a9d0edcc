"""``search_code`` and ``code_graph``: the agents' side of the code index.
Every hit names its file path (workspace-relative), so the model can
read_file it next."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paicli_tui.knowledge.codeindex.search import CodeHit
from paicli_tui.knowledge.memory.tools import KnowledgeTool
from paicli_tui.tools.base import ToolContext, ToolError, ToolResult, object_schema, plural

if TYPE_CHECKING:
    from paicli_tui.knowledge.codeindex.graph import SymbolGraph

#: Lines of each hit shown to the model; read_file gives the rest.
SNIPPET_LINES = 12
LINE_WIDTH = 160
NO_INDEX = ("there is no code index for this workspace yet: the person builds it with /index (or `paicli index`); "
            "use grep_code and glob_files meanwhile")


class SearchCode(KnowledgeTool):
    name = "search_code"
    description = (
        "Search the workspace's code index for code about a query — words, identifiers or a question. Returns "
        "ranked chunks (functions, classes, sections), each with its file path, line range and symbol, and the "
        "first lines of each; read_file the path for more. The index is built with /index; grep_code finds exact text."
    )
    parameters = object_schema({
        "query": {"type": "string", "minLength": 1, "description": "What to look for."},
        "path": {"type": "string", "description": "Only search under this folder or file (workspace-relative)."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 20, "description": "Most results (default 8)."},
    }, ["query"])

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if self.knowledge.index_files() == 0:
            raise ToolError(NO_INDEX)
        hits = self.knowledge.search_code(args["query"], limit=args.get("limit", 8), path=args.get("path", ""))
        if not hits:
            return ToolResult(True, f"no indexed code matches {args['query']!r}; try other words or grep_code",
                              "0 results")
        blocks = [format_hit(number, hit) for number, hit in enumerate(hits, start=1)]
        return ToolResult(True, "\n\n".join(blocks), f"{plural(len(hits), 'result')} for {args['query']}")


def format_hit(number: int, hit: CodeHit) -> str:
    symbol = f" — {hit.symbol} ({hit.kind})" if hit.symbol else f" — ({hit.kind})"
    stale = "  [changed since indexed]" if hit.stale else ""
    lines = [f"{number}. {hit.location()}{symbol}{stale}"]
    body = hit.body.splitlines()
    for offset, text in enumerate(body[:SNIPPET_LINES]):
        lines.append(f"   {hit.start_line + offset:>5} | {text[:LINE_WIDTH]}")
    if len(body) > SNIPPET_LINES:
        lines.append(f"   … {len(body) - SNIPPET_LINES} more lines")
    return "\n".join(lines)


class CodeGraph(KnowledgeTool):
    name = "code_graph"
    description = (
        "From the code index: where a symbol (function, class, method; `Class.method` narrows it) is defined, who "
        "calls it, what it calls, which files import its module and which others mention it, each with file path "
        "and line. Links are by name, as parsed: a call to `run` counts for every `run`."
    )
    parameters = object_schema({
        "symbol": {"type": "string", "minLength": 1, "description": "A name such as parse_plan or Planner.create."},
    }, ["symbol"])

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if self.knowledge.index_files() == 0:
            raise ToolError(NO_INDEX)
        graph = self.knowledge.graph(args["symbol"])
        if not graph.found:
            return ToolResult(True, f"{args['symbol']!r} is not defined, called or mentioned in the indexed code",
                              "not found")
        summary = (f"{plural(len(graph.definitions), 'definition')}, {plural(len(graph.callers), 'caller')}, "
                   f"{plural(len(graph.callees), 'callee')}")
        return ToolResult(True, format_graph(graph), summary)


def format_graph(graph: "SymbolGraph") -> str:
    lines = [graph.symbol]
    lines.append(f"defined in ({len(graph.definitions)}):" if graph.definitions else "defined in: nowhere in the index")
    lines += [f"  {d.path}:{d.start_line}-{d.end_line} {d.qualified} ({d.kind})" for d in graph.definitions]
    lines.append(f"called by ({len(graph.callers)}):" if graph.callers else "called by: no call found")
    lines += [f"  {s.path}:{s.line} in {s.label or 'module level'}" for s in graph.callers]
    if graph.callees:
        lines.append(f"calls ({len(graph.callees)}):")
        for callee in graph.callees:
            where = ", ".join(f"{s.path}:{s.line}" for s in callee.defined_at) or "not defined in the index"
            lines.append(f"  {callee.name} (line {callee.line}) → {where}")
    if graph.importers:
        lines.append(f"its module is imported by ({len(graph.importers)}):")
        lines += [f"  {s.path}:{s.line} {s.label}" for s in graph.importers]
    if graph.references:
        lines.append(f"also mentioned in ({len(graph.references)}):")
        lines += [f"  {s.path}:{s.line} ({s.label})" for s in graph.references]
    return "\n".join(lines)
