"""What the parser needs to know per language: which nodes are definitions
(and of what kind), which hold members, which only wrap a definition, and
the tree-sitter queries for call sites and identifier uses.

The grammars are the pre-built ones of ``tree-sitter-language-pack`` (0.13:
the last release that ships them inside the wheel; later releases download
grammars at run time, which an offline machine cannot)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath


@dataclass(frozen=True)
class LanguageSpec:
    name: str
    """The grammar's name in tree-sitter-language-pack."""
    definitions: dict[str, str]
    """Node type → kind of definition."""
    containers: frozenset[str] = frozenset()
    """Definition node types whose body holds members (methods)."""
    wrappers: frozenset[str] = frozenset()
    """Node types looked through on the same level (decorators, export)."""
    calls: str = ""
    """Query capturing each called name as ``@callee``."""
    refs: str = ""
    """Query capturing each identifier use as ``@ref``."""
    member_kinds: dict[str, str] = field(default_factory=dict)
    """Kind of a function definition found inside a container."""


_FUNCTION_MEMBER = {"function": "method"}

PYTHON = LanguageSpec(
    "python",
    {"function_definition": "function", "class_definition": "class"},
    containers=frozenset({"class_definition"}),
    wrappers=frozenset({"decorated_definition"}),
    calls="(call function: [(identifier) @callee (attribute attribute: (identifier) @callee)])",
    refs="(identifier) @ref",
    member_kinds=_FUNCTION_MEMBER,
)

_JS_DEFINITIONS = {
    "function_declaration": "function", "generator_function_declaration": "function",
    "class_declaration": "class", "class": "class", "method_definition": "method",
    "variable_declarator": "function", "field_definition": "method",
}
_JS_CALLS = ("(call_expression function: [(identifier) @callee (member_expression property: (property_identifier) @callee)]) "
             "(new_expression constructor: [(identifier) @callee (member_expression property: (property_identifier) @callee)])")
JAVASCRIPT = LanguageSpec(
    "javascript",
    _JS_DEFINITIONS,
    containers=frozenset({"class_declaration", "class"}),
    wrappers=frozenset({"export_statement", "lexical_declaration", "variable_declaration"}),
    calls=_JS_CALLS,
    refs="(identifier) @ref",
)
_TS_DEFINITIONS = {
    **_JS_DEFINITIONS,
    "abstract_class_declaration": "class", "interface_declaration": "interface", "type_alias_declaration": "type",
    "enum_declaration": "enum", "internal_module": "namespace", "public_field_definition": "method",
    "method_signature": "method", "abstract_method_signature": "method", "function_signature": "function",
}
_TS_CONTAINERS = frozenset({"class_declaration", "class", "abstract_class_declaration", "interface_declaration",
                            "internal_module"})
_TS_WRAPPERS = frozenset({"export_statement", "lexical_declaration", "variable_declaration", "expression_statement",
                          "ambient_declaration"})
TYPESCRIPT = LanguageSpec("typescript", _TS_DEFINITIONS, _TS_CONTAINERS, _TS_WRAPPERS, _JS_CALLS,
                          "(identifier) @ref (type_identifier) @ref")
TSX = LanguageSpec("tsx", _TS_DEFINITIONS, _TS_CONTAINERS, _TS_WRAPPERS, _JS_CALLS,
                   "(identifier) @ref (type_identifier) @ref")

GO = LanguageSpec(
    "go",
    {"function_declaration": "function", "method_declaration": "method", "type_spec": "type"},
    wrappers=frozenset({"type_declaration"}),
    calls="(call_expression function: [(identifier) @callee (selector_expression field: (field_identifier) @callee)])",
    refs="(identifier) @ref (type_identifier) @ref (field_identifier) @ref",
)

RUST = LanguageSpec(
    "rust",
    {"function_item": "function", "function_signature_item": "function", "struct_item": "struct",
     "enum_item": "enum", "trait_item": "trait", "impl_item": "impl", "mod_item": "module", "type_item": "type",
     "macro_definition": "macro", "union_item": "struct"},
    containers=frozenset({"impl_item", "trait_item", "mod_item"}),
    calls=("(call_expression function: [(identifier) @callee (scoped_identifier name: (identifier) @callee) "
           "(field_expression field: (field_identifier) @callee)]) (macro_invocation macro: (identifier) @callee)"),
    refs="(identifier) @ref (type_identifier) @ref (field_identifier) @ref",
    member_kinds=_FUNCTION_MEMBER,
)

JAVA = LanguageSpec(
    "java",
    {"class_declaration": "class", "interface_declaration": "interface", "enum_declaration": "enum",
     "record_declaration": "class", "annotation_type_declaration": "interface", "method_declaration": "method",
     "constructor_declaration": "constructor"},
    containers=frozenset({"class_declaration", "interface_declaration", "enum_declaration", "record_declaration"}),
    wrappers=frozenset({"enum_body_declarations"}),
    calls="(method_invocation name: (identifier) @callee) (object_creation_expression type: (type_identifier) @callee)",
    refs="(identifier) @ref (type_identifier) @ref",
)

BY_EXTENSION: dict[str, LanguageSpec] = {
    ".py": PYTHON, ".pyi": PYTHON,
    ".js": JAVASCRIPT, ".mjs": JAVASCRIPT, ".cjs": JAVASCRIPT, ".jsx": JAVASCRIPT,
    ".ts": TYPESCRIPT, ".mts": TYPESCRIPT, ".cts": TYPESCRIPT, ".tsx": TSX,
    ".go": GO, ".rs": RUST, ".java": JAVA,
}
MARKDOWN_EXTENSIONS = frozenset({".md", ".markdown", ".rst"})


def language_of(path: str) -> str:
    """A grammar name, ``markdown`` or ``text``."""
    suffix = PurePosixPath(path).suffix.lower()
    spec = BY_EXTENSION.get(suffix)
    if spec is not None:
        return spec.name
    return "markdown" if suffix in MARKDOWN_EXTENSIONS else "text"


def spec_for(language: str) -> LanguageSpec | None:
    return next((spec for spec in BY_EXTENSION.values() if spec.name == language), None)


@lru_cache(maxsize=None)
def parser_and_queries(language: str):
    """(parser, calls query, refs query) for a grammar, made once per thread
    of use: tree-sitter parsers are not shared between threads (see
    ``parse.py``, which keeps one per thread)."""
    from tree_sitter import Query
    from tree_sitter_language_pack import get_language

    spec = spec_for(language)
    if spec is None:
        raise KeyError(language)
    grammar = get_language(language)
    return grammar, Query(grammar, spec.calls), Query(grammar, spec.refs)
