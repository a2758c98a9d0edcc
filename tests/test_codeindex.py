"""The code index on real files and a real SQLite file: built from the
workspace as rg lists it (.gitignore respected), ranked search with path,
line range and symbol, the graph across files, incremental refresh by hash,
deleted files leaving, and stale hits marked."""

from __future__ import annotations

import os
import threading
import time

import pytest

from paicli_tui.knowledge.codeindex.graph import symbol_graph
from paicli_tui.knowledge.codeindex.indexer import Indexer
from paicli_tui.knowledge.codeindex.search import search_code
from paicli_tui.knowledge.memory.database import Database
from tests.support.shop_tree import FILES, write_shop

@pytest.fixture
def workspace(tmp_path):
    return write_shop(tmp_path / "ws")


@pytest.fixture
def db(tmp_path):
    return Database(tmp_path / "knowledge.sqlite3")


def _paths(db) -> list[str]:
    return [row[0] for row in db.connection().execute("SELECT path FROM files ORDER BY path")]


def test_build_respects_gitignore_and_reports(workspace, db):
    steps = []
    report = Indexer(db, workspace).build(progress=steps.append)
    assert _paths(db) == [".gitignore", "README.md", "shop/cart.py", "shop/checkout.py", "shop/pricing.py", "web/api.ts"]
    assert (report.files, report.added, report.changed, report.removed, report.complete) == (6, 6, 0, 0, True)
    assert report.chunks > 0 and report.symbols >= 8
    assert steps[-1].done == steps[-1].total == 6
    assert "index updated: 6 files, 6 new" in report.line()


def test_search_ranks_the_defining_chunk_first_with_path_lines_and_symbol(workspace, db):
    Indexer(db, workspace).build()
    hits = search_code(db, "where is the discount applied", limit=5)
    assert (hits[0].path, hits[0].symbol, hits[0].kind) == ("shop/pricing.py", "apply_discount", "function")
    assert (hits[0].start_line, hits[0].end_line) == (1, 3)
    assert hits[0].body.startswith("def apply_discount(amount):")
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    top = search_code(db, "addItem", limit=3)[0]  # camelCase finds snake_case parts
    assert (top.path, top.symbol, top.start_line, top.end_line) == ("shop/cart.py", "Cart", 5, 13)  # a small class is one chunk
    assert search_code(db, "submitOrder")[0].path == "web/api.ts"
    assert search_code(db, "discount", path="web") == []
    assert {h.path for h in search_code(db, "discount", path="shop/")} <= {"shop/cart.py", "shop/pricing.py"}
    assert search_code(db, "generated noise") == []  # git-ignored


def test_the_graph_links_definitions_calls_and_imports_across_files(workspace, db):
    Indexer(db, workspace).build()
    graph = symbol_graph(db, "apply_discount")
    assert [(d.path, d.start_line, d.end_line) for d in graph.definitions] == [("shop/pricing.py", 1, 3)]
    assert [(s.path, s.line, s.label) for s in graph.callers] == [("shop/cart.py", 13, "Cart.total")]
    assert [(s.path, s.label) for s in graph.importers] == [("shop/cart.py", "shop.pricing"),
                                                           ("shop/checkout.py", "shop")]
    total = symbol_graph(db, "Cart.total")
    assert [c.name for c in total.callees] == ["apply_discount", "sum"]
    assert total.callees[0].defined_at[0].path == "shop/pricing.py"
    assert [(s.path, s.label) for s in symbol_graph(db, "checkout").callers] == [("web/api.ts", "submitOrder")]
    assert not symbol_graph(db, "no_such_thing").found


def test_a_refresh_parses_only_changed_files_and_drops_deleted_ones(workspace, db):
    indexer = Indexer(db, workspace)
    indexer.build()
    ids_before = dict(db.connection().execute("SELECT path, indexed FROM files"))
    time.sleep(0.01)
    (workspace / "shop/pricing.py").write_text(FILES["shop/pricing.py"].replace("tax_rate", "vat_rate"))
    (workspace / "shop/checkout.py").unlink()
    os.utime(workspace / "README.md")  # touched, same content: not parsed again
    report = indexer.build()
    assert report.parsed_paths == ["shop/pricing.py"]
    assert (report.added, report.changed, report.removed, report.unchanged) == (0, 1, 1, 4)
    assert report.removed_paths == ["shop/checkout.py"]
    assert "shop/checkout.py" not in _paths(db)
    after = dict(db.connection().execute("SELECT path, indexed FROM files"))
    assert {p for p in after if after[p] != ids_before[p]} == {"shop/pricing.py"}
    assert search_code(db, "checkout skus") == [] or all(h.path != "shop/checkout.py" for h in search_code(db, "checkout skus"))
    assert symbol_graph(db, "vat_rate").definitions and not symbol_graph(db, "tax_rate").definitions
    assert not symbol_graph(db, "checkout").definitions  # its symbols and calls went with it
    for table in ("chunks", "symbols", "calls", "imports", "refs"):
        orphans = db.connection().execute(f"SELECT count(*) FROM {table} WHERE file_id NOT IN (SELECT id FROM files)")
        assert orphans.fetchone()[0] == 0, table
    assert indexer.build().parsed_paths == []  # nothing changed since


def test_a_cancelled_build_keeps_what_it_wrote_and_removes_nothing(workspace, db):
    Indexer(db, workspace).build()
    (workspace / "README.md").unlink()
    (workspace / "shop/extra.py").write_text("def refund_order():\n    return 0\n")
    listed = sorted(["shop/extra.py", *(p for p in FILES if p != "README.md" and not p.startswith("build/"))])
    cancel = threading.Event()

    def listing_then_cancel(stop):
        stop.set()  # as if Esc came right after the walk
        return listed

    report = Indexer(db, workspace, list_files=listing_then_cancel).build(cancel)
    assert not report.complete and "README.md" in _paths(db)  # removals wait for a complete run
    assert "shop/extra.py" not in _paths(db)
    assert search_code(db, "discount")  # what it holds is still searchable
    before_listing = threading.Event()
    before_listing.set()
    assert not Indexer(db, workspace).build(before_listing).complete
    assert Indexer(db, workspace).build().removed_paths == ["README.md"]


def test_hits_from_a_file_changed_since_indexing_are_marked(workspace, db):
    Indexer(db, workspace).build()
    time.sleep(0.01)
    (workspace / "shop/pricing.py").write_text(FILES["shop/pricing.py"] + "\n# edited\n")
    hits = search_code(db, "apply discount", workspace=workspace)
    assert {h.path: h.stale for h in hits}["shop/pricing.py"] is True
    assert {h.path: h.stale for h in hits}.get("shop/cart.py") in (False, None)


def test_binary_and_huge_files_are_skipped(workspace, db):
    (workspace / "logo.png").write_bytes(b"\x89PNG\0\0\0binary")
    (workspace / "big.txt").write_text("x" * 1_100_000)
    report = Indexer(db, workspace).build()
    assert report.skipped == 2 and "logo.png" not in _paths(db) and "big.txt" not in _paths(db)


def test_imports_naming_a_longer_package_path_are_found(tmp_path, db):
    ws = tmp_path / "ws"  # the workspace is a folder inside the package `company.shop`
    (ws / "shop").mkdir(parents=True)
    (ws / "shop/pricing.py").write_text("def apply_discount(x):\n    return x\n")
    (ws / "shop/cart.py").write_text("from company.shop.pricing import apply_discount\n")
    (ws / "shop/other.py").write_text("from company.shop_pricing import apply_discount\n")  # not the module
    Indexer(db, ws).build()
    assert [s.path for s in symbol_graph(db, "apply_discount").importers] == ["shop/cart.py"]
