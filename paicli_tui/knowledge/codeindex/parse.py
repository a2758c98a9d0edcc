"""One source file read by tree-sitter: its definitions (with qualified
names and line ranges), the names it calls and from where, what it imports,
and which identifiers it uses.

Definitions come from a shallow walk (top level, and the members of classes,
impls, traits, interfaces); calls and identifier uses from tree-sitter
queries, which run in C, so a big file costs Python little. Every name is
a plain string: the graph links by name, not by type resolution."""

from __future__ import annotations

import bisect
import re
import threading
from dataclasses import dataclass, field

from paicli_tui.knowledge.codeindex.imports import Import, imports_of
from paicli_tui.knowledge.codeindex.languages import LanguageSpec, parser_and_queries, spec_for

#: Values that make a JS/TS variable or class field a function definition.
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function",
                              "class", "class_expression"})
_RECEIVER_TYPE = re.compile(r"\(\s*(?:[A-Za-z_]\w*\s+)?\*?\s*([A-Za-z_]\w*)")
_GENERIC_TAIL = re.compile(r"[<\[(].*$", re.S)
#: A ref name shorter than this is noise (loop variables, ``i``, ``x``).
MIN_REF_CHARS = 2


@dataclass(frozen=True)
class Definition:
    name: str
    qualified: str
    kind: str
    start_line: int
    """1-based, including decorators and ``export``."""
    end_line: int
    depth: int
    """0 at the top level, 1 for a member of a class/impl, …"""
    container: bool = False


@dataclass(frozen=True)
class Call:
    caller: str
    """Qualified name of the innermost definition around the call; "" at module level."""
    callee: str
    line: int


@dataclass
class ParsedFile:
    definitions: list[Definition] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    refs: dict[str, tuple[int, int]] = field(default_factory=dict)
    """name → (first line, number of uses)."""
    has_errors: bool = False


_local = threading.local()


def _parser(language: str):
    parsers = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    if language not in parsers:
        from tree_sitter import Parser

        grammar, _, _ = parser_and_queries(language)
        parsers[language] = Parser(grammar)
    return parsers[language]


def parse_source(path: str, language: str, source: bytes) -> ParsedFile:
    """Everything the index keeps from one file. ``path`` is workspace-relative
    (relative imports are resolved against it)."""
    spec = spec_for(language)
    if spec is None:
        return ParsedFile()
    tree = _parser(language).parse(source)
    root = tree.root_node
    parsed = ParsedFile(has_errors=root.has_error)
    name_sites: set[int] = set()
    _collect(root, spec, [], parsed.definitions, name_sites, None, depth=0)
    parsed.definitions.sort(key=lambda d: (d.start_line, -d.end_line))
    parsed.calls = _calls(root, language, parsed.definitions)
    parsed.refs = _refs(root, language, name_sites)
    parsed.imports = imports_of(language, root, path)
    return parsed


def _collect(node, spec: LanguageSpec, scope: list[str], out: list[Definition], name_sites: set[int],
             start: int | None, depth: int) -> None:
    for child in node.named_children:
        kind_of = child.type
        if kind_of in spec.wrappers:
            _collect(child, spec, scope, out, name_sites, start if start is not None else child.start_point[0], depth)
            continue
        kind = spec.definitions.get(kind_of)
        if kind is None or not _accepted(child):
            continue
        name_node, name = _name(child, spec)
        if not name:
            continue
        if name_node is not None:
            name_sites.add(name_node.start_byte)
        qualified_scope = scope
        if kind_of == "method_declaration" and spec.name == "go":
            receiver = _go_receiver(child)
            qualified_scope = [*scope, receiver] if receiver else scope
        if kind_of == "type_spec":
            kind = _go_type_kind(child)
        elif scope and kind == "function":
            kind = spec.member_kinds.get(kind, kind)
        container = kind_of in spec.containers
        qualified = ".".join([*qualified_scope, name])
        first = start if start is not None else child.start_point[0]
        out.append(Definition(name, qualified, kind, first + 1, child.end_point[0] + 1, depth, container))
        if container:
            body = child.child_by_field_name("body")
            if body is not None:
                _collect(body, spec, [*scope, name], out, name_sites, None, depth + 1)
        start = None


def _accepted(node) -> bool:
    """A JS/TS variable or field is a definition only when it holds a function or class."""
    if node.type in ("variable_declarator", "field_definition", "public_field_definition"):
        value = node.child_by_field_name("value")
        return value is not None and value.type in _FUNCTION_VALUES
    return True


def _name(node, spec: LanguageSpec):
    if node.type == "impl_item":
        target = node.child_by_field_name("type")
        text = _text(target)
        return None, _GENERIC_TAIL.sub("", text).strip()
    name = node.child_by_field_name("name")
    if name is None and node.type in ("field_definition", "public_field_definition"):
        name = node.child_by_field_name("property")
    return name, _text(name)


def _go_receiver(node) -> str:
    match = _RECEIVER_TYPE.match(_text(node.child_by_field_name("receiver")))
    return match.group(1) if match else ""


def _go_type_kind(node) -> str:
    value = node.child_by_field_name("type")
    kind = value.type if value is not None else ""
    return {"struct_type": "struct", "interface_type": "interface"}.get(kind, "type")


def _calls(root, language: str, definitions: list[Definition]) -> list[Call]:
    from tree_sitter import QueryCursor

    _, calls_query, _ = parser_and_queries(language)
    found = QueryCursor(calls_query).captures(root).get("callee", [])
    if not found:
        return []
    # The innermost definition around a line: the last one starting at or
    # before it that still covers it.
    starts = [d.start_line for d in definitions]
    calls = []
    for node in found:
        line = node.start_point[0] + 1
        caller = ""
        for index in range(bisect.bisect_right(starts, line) - 1, -1, -1):
            definition = definitions[index]
            if definition.end_line >= line:
                caller = definition.qualified
                break
        calls.append(Call(caller, _text(node), line))
    return calls


def _refs(root, language: str, name_sites: set[int]) -> dict[str, tuple[int, int]]:
    from tree_sitter import QueryCursor

    _, _, refs_query = parser_and_queries(language)
    seen: dict[bytes, list[int]] = {}
    for node in QueryCursor(refs_query).captures(root).get("ref", []):
        raw = node.text
        entry = seen.get(raw)
        if entry is None:
            if len(raw) < MIN_REF_CHARS or node.start_byte in name_sites:
                continue
            seen[raw] = [node.start_point[0] + 1, 1]
        elif node.start_byte not in name_sites:
            entry[0] = min(entry[0], node.start_point[0] + 1)  # captures are not in source order
            entry[1] += 1
    return {raw.decode("utf-8", errors="replace"): (line, count) for raw, (line, count) in seen.items()}


def _text(node) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", errors="replace")
