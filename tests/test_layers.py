"""The architecture you can see: layers as folders, checked.

``lint-imports`` holds the layer contracts in pyproject.toml; this module
also finds import circles between single files (function-level imports
count, ``TYPE_CHECKING`` ones do not), keeps the package top to a few loose
modules and every module under 500 lines."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "paicli_tui"
LOOSE_MODULES_ALLOWED = {"__init__.py", "__main__.py", "cli.py"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
PACKAGES = {name for name, path in MODULES.items() if path.name == "__init__.py"}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = module.split(".") if module in PACKAGES else module.split(".")[:-1]
            parts = parts[: len(parts) - node.level + 1]
            base = ".".join(parts + ([node.module] if node.module else []))
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
    found = []
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        # Importing a.b.c runs a/__init__ and a/b/__init__ first: those count too.
        parts = name.split(".") if name else []
        found += [".".join(parts[:i]) for i in range(2, len(parts) + 1)]
    return [name for name in found if name != module and not module.startswith(name + ".")]


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in MODULES}

    def visit(module: str, node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for other in child.orelse:
                    visit(module, other)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                graph[module].update(_targets(module, child))
            visit(module, child)

    for name, path in MODULES.items():
        visit(name, ast.parse(path.read_text(encoding="utf-8")))
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected sets of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in graph:
        if node not in index:
            connect(node)
    return found


def test_no_import_circle_between_files():
    assert circles(import_graph()) == []


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]


@pytest.mark.parametrize("depth", [2, 3], ids=["packages", "sub-packages"])
def test_no_import_circle_between_packages(depth):
    """``paicli_tui.ui`` against ``paicli_tui.session`` (depth 2), and
    ``paicli_tui.ui.run`` against ``paicli_tui.ui.review`` (depth 3)."""
    graph: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        home = ".".join(module.split(".")[:depth])
        graph.setdefault(home, set()).update(
            ".".join(t.split(".")[:depth]) for t in targets if ".".join(t.split(".")[:depth]) != home)
    for targets in list(graph.values()):
        for target in targets:
            graph.setdefault(target, set())
    assert circles(graph) == []


def test_the_package_top_holds_only_a_few_loose_modules():
    loose = {path.name for path in PACKAGE.glob("*.py")}
    assert loose <= LOOSE_MODULES_ALLOWED


def test_no_module_is_over_500_lines():
    long = {name: n for name, path in MODULES.items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > 500}
    assert long == {}


def test_the_layer_contracts_hold():
    lint = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    result = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def test_the_names_outside_checks_rely_on_import_from_where_they_say():
    import tomllib

    from paicli_tui.plan import PlanError, parse_plan
    from paicli_tui.team import StructuredReplyError, parse_review_verdict, parse_worker_report

    plan = parse_plan('{"tasks": [{"id": "a", "description": "x"}, {"id": "b", "description": "y", '
                      '"dependencies": ["a"]}]}')
    assert plan.topological_order() == ["task_1", "task_2"] and plan.batches() == [["task_1"], ["task_2"]]
    assert issubclass(PlanError, Exception) and issubclass(StructuredReplyError, Exception)
    assert parse_review_verdict("not json").approved is False
    assert callable(parse_worker_report)
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts == {"paicli": "paicli_tui.cli:main"}
