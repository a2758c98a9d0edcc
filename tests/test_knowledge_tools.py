"""The four knowledge tools through the real registry: validation, the
results the model reads (every hit names its file path), and refusals."""

from __future__ import annotations

import json
import threading

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.knowledge.service import Knowledge
from paicli_tui.knowledge.tools import knowledge_tools
from paicli_tui.llm.types import ToolCall
from paicli_tui.knowledge.memory.database import Database
from paicli_tui.policy.approval import DenyApprover
from paicli_tui.tools.base import ToolContext
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.tools.trusted_urls import TrustedUrls


@pytest.fixture
def setup(tmp_path):
    ws = tmp_path / "ws"
    (ws / "app").mkdir(parents=True)
    (ws / "app/models.py").write_text(
        "class Invoice:\n    def total(self):\n        return compute_total(self.lines)\n\n\n"
        "def compute_total(lines):\n    return sum(lines)\n")
    (ws / "app/views.py").write_text("from app.models import Invoice\n\n\ndef show(i):\n    return Invoice().total()\n")
    knowledge = Knowledge(ws, db=Database(tmp_path / "k.sqlite3"))
    registry = ToolRegistry(ws, Settings())
    for tool in knowledge_tools(knowledge):
        registry.register(tool)
    return knowledge, registry


def run(registry, name, mode="auto", **arguments):
    # DenyApprover: in auto mode none of these tools may ask the person anything;
    # in ask mode only save_memory does (a fact reaches later sessions).
    ctx = ToolContext("task_1", threading.Event(), TrustedUrls(), DenyApprover(), approval_mode=mode)
    return registry.execute(ToolCall("c1", name, json.dumps(arguments)), ctx)


def test_code_tools_say_how_to_build_a_missing_index(setup):
    _, registry = setup
    result = run(registry, "search_code", query="total")
    assert not result.ok and "/index" in result.content and "grep_code" in result.content
    assert not run(registry, "code_graph", symbol="total").ok


def test_search_code_names_path_lines_and_symbol_of_each_hit(setup):
    knowledge, registry = setup
    knowledge.build_index()
    result = run(registry, "search_code", query="compute the invoice total")
    assert result.ok and result.summary.endswith("for compute the invoice total")
    first = result.content.splitlines()[0]
    assert first in ("1. app/models.py:6-7 — compute_total (function)", "1. app/models.py:1-3 — Invoice (class)")
    assert "app/models.py:" in result.content and "|" in result.content.splitlines()[1]
    assert run(registry, "search_code", query="compute", path="app/views.py").content.startswith("no indexed code")
    bad = run(registry, "search_code", query="x", limit=99)
    assert not bad.ok and "limit" in bad.content


def test_code_graph_gives_definitions_callers_callees_and_importers(setup):
    knowledge, registry = setup
    knowledge.build_index()
    content = run(registry, "code_graph", symbol="Invoice.total").content
    assert "app/models.py:2-3 Invoice.total (method)" in content
    assert "app/views.py:5 in show" in content
    assert "compute_total (line 3) → app/models.py:6" in content
    assert "its module is imported by (1):\n  app/views.py:1 app.models" in content
    assert "not defined, called or mentioned" in run(registry, "code_graph", symbol="nothing_like_it").content


def test_save_and_search_memory(setup):
    knowledge, registry = setup
    knowledge.begin_run("s/1")
    refused = run(registry, "save_memory", mode="ask", fact="Invoices are totalled in app/models.py")
    assert not refused.ok
    for tool, arguments in (("search_memory", {"query": "x"}), ("search_code", {"query": "total"})):
        assert "denied" not in run(registry, tool, mode="ask", **arguments).content
    saved = run(registry, "save_memory", fact="Invoices are totalled in app/models.py")
    assert saved.ok and saved.content.startswith("noted (kept when this run ends)")
    found = run(registry, "search_memory", query="where are invoices totalled")
    assert "[new, saved by task_1 in this run] Invoices are totalled in app/models.py" in found.content
    knowledge.end_run(cancelled=False)
    kept = run(registry, "search_memory", query="invoices")
    assert "saved by task_1 in run s/1" in kept.content
    assert not run(registry, "save_memory", fact="").ok
    assert run(registry, "search_memory", query="zebra").content == "no saved fact matches 'zebra'"
    assert registry.is_read_only("search_code") and registry.is_read_only("code_graph")
    assert not registry.is_read_only("save_memory")
