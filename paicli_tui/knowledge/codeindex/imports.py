"""What a file imports, as slash paths the graph can match against files.

Relative imports are resolved against the importing file (``from . import
x`` in ``pkg/a.py`` → ``pkg/x``; ``import "./y"`` in ``web/app.js`` →
``web/y``); absolute ones keep their module path (``paicli_tui.tools`` →
``paicli_tui/tools``), which matches any file whose path ends with it.
Each import lists every target it may mean: ``from a.b import c`` names
the module ``a/b`` or, when ``c`` is a module, ``a/b/c``."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Import:
    raw: str
    targets: tuple[str, ...]
    """Slash paths the import may name, most specific first."""
    line: int


_SCRIPT_SUFFIX = re.compile(r"\.(?:[cm]?[jt]sx?)$")


def imports_of(language: str, root, path: str) -> list[Import]:
    reader = _READERS.get(language)
    return reader(root, path) if reader else []


def _make(raw: str, targets: list[str], line: int) -> Import:
    unique = tuple(dict.fromkeys(t.strip("/") for t in targets if t and t.strip("/")))
    return Import(raw, unique, line)


def _text(node) -> str:
    return node.text.decode("utf-8", errors="replace") if node is not None and node.text is not None else ""


def _line(node) -> int:
    return node.start_point[0] + 1


# -- Python ------------------------------------------------------------------


def _python(root, path: str) -> list[Import]:
    found = []
    for node in root.named_children:
        if node.type == "import_statement":
            for name in node.children_by_field_name("name"):
                module = _text(name.child_by_field_name("name") if name.type == "aliased_import" else name)
                found.append(_make(module, [module.replace(".", "/")], _line(node)))
        elif node.type == "import_from_statement":
            module_node = node.child_by_field_name("module_name")
            base = _python_base(module_node, path)
            names = [_text(n.child_by_field_name("name") if n.type == "aliased_import" else n)
                     for n in node.children_by_field_name("name")]
            targets = [base] + [f"{base}/{name.replace('.', '/')}" if base else name.replace(".", "/") for name in names]
            found.append(_make(_text(module_node), targets, _line(node)))
    return found


def _python_base(module_node, path: str) -> str:
    if module_node is None:
        return ""
    if module_node.type != "relative_import":
        return _text(module_node).replace(".", "/")
    prefix = next((c for c in module_node.named_children if c.type == "import_prefix"), None)
    dots = len(_text(prefix)) if prefix is not None else 1
    dotted = next((c for c in module_node.named_children if c.type == "dotted_name"), None)
    package = posixpath.dirname(path)
    for _ in range(dots - 1):
        package = posixpath.dirname(package)
    rest = _text(dotted).replace(".", "/") if dotted is not None else ""
    return posixpath.join(package, rest) if rest else package


# -- JavaScript / TypeScript ------------------------------------------------------


def _scripts(root, path: str) -> list[Import]:
    found = []
    stack = [root]
    while stack:  # imports sit at the top; require() and import() anywhere
        node = stack.pop()
        if node.type in ("import_statement", "export_statement"):
            source = node.child_by_field_name("source")
            if source is not None:
                found.append(_script_import(source, path))
            if node.type == "import_statement":
                continue
        elif node.type == "call_expression":
            function = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            if function is not None and function.type in ("identifier", "import") and _text(function) in (
                    "require", "import") and arguments is not None and arguments.named_child_count == 1:
                argument = arguments.named_children[0]
                if argument.type == "string":
                    found.append(_script_import(argument, path))
        stack.extend(reversed(node.named_children))
    found.sort(key=lambda imp: imp.line)
    return found


def _script_import(string_node, path: str) -> Import:
    spec = _text(string_node).strip("'\"`")
    target = spec
    if spec.startswith("."):
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))
    target = _SCRIPT_SUFFIX.sub("", target)
    if target.endswith("/index"):
        target = target[: -len("/index")]
    return _make(spec, [target], _line(string_node))


# -- Go ---------------------------------------------------------------------------


def _go(root, path: str) -> list[Import]:
    found = []
    for declaration in root.named_children:
        if declaration.type != "import_declaration":
            continue
        specs = [c for c in declaration.named_children if c.type == "import_spec"]
        for group in (c for c in declaration.named_children if c.type == "import_spec_list"):
            specs += [c for c in group.named_children if c.type == "import_spec"]
        for spec in specs:
            module = _text(spec.child_by_field_name("path")).strip('"`')
            found.append(_make(module, [module], _line(spec)))
    return found


# -- Rust -------------------------------------------------------------------------


def _rust(root, path: str) -> list[Import]:
    found = []
    for node in root.named_children:
        if node.type != "use_declaration":
            continue
        argument = node.child_by_field_name("argument")
        paths = _use_paths(argument, [])
        targets = []
        for parts in paths:
            if parts and parts[0] == "crate":
                parts = parts[1:]
            if parts:
                targets += ["/".join(parts), "/".join(parts[:-1])]
        found.append(_make(_text(argument), targets, _line(node)))
    return found


def _use_paths(node, prefix: list[str]) -> list[list[str]]:
    if node is None:
        return []
    kind = node.type
    if kind in ("identifier", "crate", "self", "super"):
        return [prefix + [_text(node)]]
    if kind == "scoped_identifier":
        return [prefix + _text(node).split("::")]
    if kind == "use_as_clause":
        return _use_paths(node.child_by_field_name("path"), prefix)
    if kind == "use_wildcard":
        return [prefix + _text(node).rstrip("*").rstrip(":").split("::")]
    if kind == "scoped_use_list":
        base = node.child_by_field_name("path")
        inner = prefix + (_text(base).split("::") if base is not None else [])
        return _use_paths(node.child_by_field_name("list"), inner)
    if kind == "use_list":
        return [p for child in node.named_children for p in _use_paths(child, prefix)]
    return []


# -- Java -------------------------------------------------------------------------


def _java(root, path: str) -> list[Import]:
    found = []
    for node in root.named_children:
        if node.type != "import_declaration":
            continue
        name = next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None)
        module = _text(name).replace(".", "/")
        wildcard = any(c.type == "asterisk" for c in node.named_children)
        targets = [module] if wildcard else [module, posixpath.dirname(module)]
        found.append(_make(_text(name), targets, _line(node)))
    return found


_READERS = {"python": _python, "javascript": _scripts, "typescript": _scripts, "tsx": _scripts,
            "go": _go, "rust": _rust, "java": _java}


#: Files that stand for their directory's module.
_PACKAGE_FILES = {"python": ("__init__",), "javascript": ("index",), "typescript": ("index",), "tsx": ("index",),
                  "rust": ("mod", "lib", "main")}


def module_keys(path: str, language: str) -> list[str]:
    """The slash paths an import of ``path``'s module may use, as suffixes:
    ``src/pkg/mod.py`` → src/pkg/mod, pkg/mod, mod (a package's
    ``__init__``, ``index``, ``mod.rs``/``lib.rs`` and every Go file stand
    for their directory)."""
    stem, _ = posixpath.splitext(path)
    directory = posixpath.dirname(path)
    keys = [stem]
    if language == "go" or posixpath.basename(stem) in _PACKAGE_FILES.get(language, ()):
        keys = [directory] if directory else []
        if language != "go":
            keys.append(stem)
    suffixes: list[str] = []
    for key in keys:
        parts = [p for p in key.split("/") if p]
        if language == "rust" and parts and parts[0] == "src":
            parts = parts[1:]
        suffixes += ["/".join(parts[i:]) for i in range(len(parts))]
    return list(dict.fromkeys(s for s in suffixes if s))
