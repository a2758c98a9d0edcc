"""What tree-sitter reads from each supported language: definitions with
qualified names and line ranges, calls with their caller, imports as paths
the graph can match, identifier uses; and chunks cut along definitions."""

from __future__ import annotations

from paicli_tui.knowledge.codeindex.chunks import MAX_LINES, chunk_code, chunk_markdown
from paicli_tui.knowledge.codeindex.imports import module_keys
from paicli_tui.knowledge.codeindex.languages import language_of
from paicli_tui.knowledge.codeindex.parse import parse_source


def _defs(path, language, source):
    return [(d.qualified, d.kind, d.start_line, d.end_line) for d in parse_source(path, language, source).definitions]


def _calls(path, language, source):
    return sorted((c.caller, c.callee) for c in parse_source(path, language, source).calls)


PY = b"""import os.path as osp
from .store import Store, load
from ..util import helpers

@cached
class Planner(Base):
    limit = 3

    def create(self, goal):
        return self.parse(goal) or load(goal)

def parse_plan(text):
    return Planner().create(text)
"""


def test_python():
    assert _defs("pkg/plan.py", "python", PY) == [
        ("Planner", "class", 5, 10), ("Planner.create", "method", 9, 10), ("parse_plan", "function", 12, 13)]
    assert _calls("pkg/plan.py", "python", PY) == [
        ("Planner.create", "load"), ("Planner.create", "parse"), ("parse_plan", "Planner"), ("parse_plan", "create")]
    imports = parse_source("pkg/plan.py", "python", PY).imports
    assert [i.targets for i in imports] == [("os/path",), ("pkg/store", "pkg/store/Store", "pkg/store/load"),
                                            ("util", "util/helpers")]
    refs = parse_source("pkg/plan.py", "python", PY).refs
    assert refs["goal"] == (9, 3) and "parse_plan" not in refs  # a definition's own name is not a use


def test_javascript_and_typescript():
    js = b"""import { render } from './view/render.js';
const fs = require('fs');
export class Page extends Base {
  show() { return render(this.body); }
  hide = () => this.toggle();
}
export function mount(el) { new Page().show(); }
const helper = function () { return 1; };
"""
    assert _defs("web/page.js", "javascript", js) == [
        ("Page", "class", 3, 6), ("Page.show", "method", 4, 4), ("Page.hide", "method", 5, 5),
        ("mount", "function", 7, 7), ("helper", "function", 8, 8)]
    assert ("mount", "Page") in _calls("web/page.js", "javascript", js)
    assert [i.targets for i in parse_source("web/page.js", "javascript", js).imports] == [("web/view/render",), ("fs",)]
    ts = b"""import type { Options } from "../options";
export interface Store { get(key: string): string }
type Id = string;
enum Mode { A, B }
export abstract class Base implements Store { get(key: string) { return lookup(key); } }
"""
    assert _defs("src/store.ts", "typescript", ts) == [
        ("Store", "interface", 2, 2), ("Store.get", "method", 2, 2), ("Id", "type", 3, 3), ("Mode", "enum", 4, 4),
        ("Base", "class", 5, 5), ("Base.get", "method", 5, 5)]
    assert [i.targets for i in parse_source("src/store.ts", "typescript", ts).imports] == [("options",)]


def test_go():
    go = b"""package server
import (
    "fmt"
    "example.com/app/store"
)
type Server struct{ db *store.DB }
type Handler interface{ Serve() }
func (s *Server) Start() error { fmt.Println("x"); return s.db.Open() }
func New() *Server { return &Server{} }
"""
    assert _defs("server/server.go", "go", go) == [
        ("Server", "struct", 6, 6), ("Handler", "interface", 7, 7), ("Server.Start", "method", 8, 8),
        ("New", "function", 9, 9)]
    assert _calls("server/server.go", "go", go) == [("Server.Start", "Open"), ("Server.Start", "Println")]
    assert [i.targets for i in parse_source("server/server.go", "go", go).imports] == [("fmt",), ("example.com/app/store",)]


def test_rust():
    rs = b"""use std::collections::{HashMap, HashSet};
use crate::store::Db as Store;
pub struct Cache { map: HashMap<String, u32> }
pub trait Lookup { fn get(&self) -> u32; }
impl Lookup for Cache { fn get(&self) -> u32 { compute(); self.map.len() as u32 } }
fn compute() -> u32 { println!("x"); 1 }
"""
    assert _defs("src/cache.rs", "rust", rs) == [
        ("Cache", "struct", 3, 3), ("Lookup", "trait", 4, 4), ("Lookup.get", "method", 4, 4),
        ("Cache", "impl", 5, 5), ("Cache.get", "method", 5, 5), ("compute", "function", 6, 6)]
    assert ("Cache.get", "compute") in _calls("src/cache.rs", "rust", rs)
    targets = [i.targets for i in parse_source("src/cache.rs", "rust", rs).imports]
    assert targets[1] == ("store/Db", "store")
    assert "std/collections/HashMap" in targets[0]


def test_java():
    java = b"""package com.acme;
import java.util.List;
public class Orders extends Base {
  public Orders() { super(); }
  List<Order> open() { return repo.findOpen(); }
  enum State { NEW, DONE; boolean last() { return check(); } }
}
"""
    assert _defs("src/com/acme/Orders.java", "java", java) == [
        ("Orders", "class", 3, 7), ("Orders.Orders", "constructor", 4, 4), ("Orders.open", "method", 5, 5),
        ("Orders.State", "enum", 6, 6), ("Orders.State.last", "method", 6, 6)]
    assert ("Orders.open", "findOpen") in _calls("src/com/acme/Orders.java", "java", java)
    assert [i.targets for i in parse_source("x/Orders.java", "java", java).imports] == [("java/util/List", "java/util")]


def test_languages_by_extension():
    assert [language_of(p) for p in ("a.py", "b.tsx", "c.RS", "README.md", "notes.txt", "x.java")] == [
        "python", "tsx", "rust", "markdown", "text", "java"]


def test_module_keys_are_the_suffixes_an_import_may_use():
    assert module_keys("src/pkg/mod.py", "python") == ["src/pkg/mod", "pkg/mod", "mod"]
    assert module_keys("pkg/__init__.py", "python")[0] == "pkg"
    assert module_keys("server/http/server.go", "go") == ["server/http", "http"]


def test_a_big_class_is_cut_into_its_methods_and_small_defs_stay_whole():
    methods = "".join(f"    def m{i}(self):\n" + "        x = 1\n" * 30 + "\n" for i in range(5))
    source = f"import os\n\n\nclass Big:\n    '''doc'''\n\n{methods}\ndef small():\n    return 1\n"
    lines = source.splitlines()
    chunks = chunk_code(lines, parse_source("big.py", "python", source.encode()).definitions)
    assert [c.symbol for c in chunks] == ["", "Big", "Big.m0", "Big.m1", "Big.m2", "Big.m3", "Big.m4", "small"]
    assert chunks[0].body == "import os" and chunks[1].body.startswith("class Big:")
    assert chunks[-1].body == "def small():\n    return 1"
    assert all(c.end_line - c.start_line < MAX_LINES for c in chunks)
    covered = sorted(n for c in chunks for n in range(c.start_line, c.end_line + 1))
    assert len(covered) == len(set(covered))  # no line in two chunks


def test_markdown_is_cut_at_headings():
    chunks = chunk_markdown("# Title\nintro\n## Install\npip install x\n## Use\nrun it\n".splitlines())
    assert [(c.symbol, c.start_line, c.end_line) for c in chunks] == [("Title", 1, 2), ("Install", 3, 4), ("Use", 5, 6)]
