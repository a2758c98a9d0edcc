"""The code graph of one symbol: where it is defined, who calls it, what it
calls, which files import its module, and which mention it.

Links are by name, as tree-sitter sees the source: a call to ``run`` is
counted for every definition named ``run``. That is what a reader can
check by hand, and it is said in the tool's description."""

from __future__ import annotations

from dataclasses import dataclass, field

from paicli_tui.knowledge.codeindex.imports import module_keys
from paicli_tui.knowledge.memory.database import Database

LIMIT = 100


@dataclass(frozen=True)
class Site:
    path: str
    line: int
    label: str = ""
    """The caller, the import text or the definition's qualified name."""


@dataclass(frozen=True)
class DefinitionSite:
    path: str
    qualified: str
    kind: str
    start_line: int
    end_line: int


@dataclass(frozen=True)
class Callee:
    name: str
    line: int
    defined_at: tuple[Site, ...] = ()


@dataclass
class SymbolGraph:
    symbol: str
    definitions: list[DefinitionSite] = field(default_factory=list)
    callers: list[Site] = field(default_factory=list)
    callees: list[Callee] = field(default_factory=list)
    importers: list[Site] = field(default_factory=list)
    references: list[Site] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return bool(self.definitions or self.callers or self.references)


def symbol_graph(db: Database, symbol: str) -> SymbolGraph:
    symbol = symbol.strip()
    graph = SymbolGraph(symbol)
    if not symbol or not db.exists():
        return graph
    conn = db.connection()
    name = symbol.rsplit(".", 1)[-1].rsplit("::", 1)[-1]
    qualified = symbol.replace("::", ".")
    if "." in qualified:
        rows = conn.execute(
            "SELECT f.id, f.path, f.language, s.qualified, s.kind, s.start_line, s.end_line FROM symbols s "
            "JOIN files f ON f.id = s.file_id WHERE s.name = ? AND (s.qualified = ? OR s.qualified LIKE ?) "
            "ORDER BY f.path, s.start_line LIMIT ?", (name, qualified, "%." + qualified, LIMIT)).fetchall()
    else:
        rows = conn.execute(
            "SELECT f.id, f.path, f.language, s.qualified, s.kind, s.start_line, s.end_line FROM symbols s "
            "JOIN files f ON f.id = s.file_id WHERE s.name = ? ORDER BY f.path, s.start_line LIMIT ?",
            (name, LIMIT)).fetchall()
    graph.definitions = [DefinitionSite(path, q, kind, start, end) for _, path, _, q, kind, start, end in rows]
    graph.callers = [Site(path, line, caller) for path, line, caller in conn.execute(
        "SELECT f.path, c.line, c.caller FROM calls c JOIN files f ON f.id = c.file_id WHERE c.callee = ? "
        "ORDER BY f.path, c.line LIMIT ?", (name, LIMIT))]
    graph.callees = _callees(conn, rows)
    graph.importers = _importers(conn, rows)
    calling = {site.path for site in graph.callers}
    graph.references = [Site(path, line, f"{count} use{'s' if count != 1 else ''}") for path, line, count in conn.execute(
        "SELECT f.path, r.line, r.count FROM refs r JOIN files f ON f.id = r.file_id WHERE r.name = ? "
        "ORDER BY f.path LIMIT ?", (name, LIMIT)) if path not in calling]
    return graph


def _callees(conn, definitions) -> list[Callee]:
    first_line: dict[str, int] = {}
    for file_id, _, _, _, _, start, end in definitions[:10]:
        for callee, line in conn.execute(
                "SELECT callee, min(line) FROM calls WHERE file_id = ? AND line BETWEEN ? AND ? GROUP BY callee "
                "ORDER BY min(line)", (file_id, start, end)):
            first_line.setdefault(callee, line)
    callees = []
    for callee, line in sorted(first_line.items(), key=lambda item: item[1])[:LIMIT]:
        where = tuple(Site(path, start, q) for path, start, q in conn.execute(
            "SELECT f.path, s.start_line, s.qualified FROM symbols s JOIN files f ON f.id = s.file_id "
            "WHERE s.name = ? ORDER BY f.path LIMIT 3", (callee,)))
        callees.append(Callee(callee, line, where))
    return callees


def _importers(conn, definitions) -> list[Site]:
    sites: dict[tuple[str, int], Site] = {}
    for file_id, path, language, *_ in definitions[:10]:
        keys = module_keys(path, language)
        if not keys:
            continue
        marks = ",".join("?" * len(keys))
        # An import names the module by a suffix of its path (src/ layouts), or
        # by a longer path when the workspace is a folder inside the package.
        longer = "%/" + keys[0].replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        for importer, line, raw in conn.execute(
                f"SELECT f.path, i.line, i.raw FROM imports i JOIN files f ON f.id = i.file_id "
                f"WHERE (i.target IN ({marks}) OR i.target LIKE ? ESCAPE '\\') AND i.file_id != ? "
                f"ORDER BY f.path, i.line LIMIT ?",
                [*keys, longer, file_id, LIMIT]):
            sites.setdefault((importer, line), Site(importer, line, raw))
    return sorted(sites.values(), key=lambda s: (s.path, s.line))[:LIMIT]
