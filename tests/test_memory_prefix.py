"""Memory search matches the start of a word ("curr" → currency) and falls
back to plain text for stems the index does not hold ("runn" → running), in
the store and in `paicli memory search`. Real SQLite, real subprocess."""

from __future__ import annotations

from paicli_tui.knowledge.memory.database import Database
from paicli_tui.knowledge.memory.facts import MemoryStore
from paicli_tui.knowledge.memory.run_facts import RunFacts
from tests.support.cli import paicli_env, run_paicli


def test_a_word_prefix_finds_the_fact(tmp_path):
    store = MemoryStore(Database(tmp_path / "k.sqlite3"))
    store.add("The currency module uses Decimal", "person")
    store.add("Releases are cut on Fridays", "person")
    assert [f.text for f in store.search("curr")] == ["The currency module uses Decimal"]
    assert [f.text for f in store.search("deci")] == ["The currency module uses Decimal"]


def test_a_stem_the_index_does_not_hold_falls_back_to_plain_text(tmp_path):
    store = MemoryStore(Database(tmp_path / "k.sqlite3"))
    store.add("Running tests needs make check", "person")
    store.add("Hosting costs 100% of the budget", "person")
    assert [f.text for f in store.search("runn")] == ["Running tests needs make check"]
    assert [f.text for f in store.search("runn hosti")] == []  # every term must be there
    assert store.search("zzz") == []


def test_facts_held_during_a_run_match_by_prefix_too():
    facts = RunFacts("run-1")
    facts.save("The currency module uses Decimal", "task_1")
    assert [f.text for f in facts.search("curr", 5)] == ["The currency module uses Decimal"]


def test_paicli_memory_search_finds_a_prefix(tmp_path, paicli_home):
    ws = tmp_path / "ws"
    ws.mkdir()
    env = paicli_env(paicli_home)
    added = run_paicli(["memory", "add", "The currency module uses Decimal", "--workspace", str(ws)],
                       home=paicli_home, cwd=ws, env=env)
    assert added.returncode == 0, added.stderr
    found = run_paicli(["memory", "search", "curr", "--workspace", str(ws)], home=paicli_home, cwd=ws, env=env)
    assert found.returncode == 0, found.stderr
    assert "The currency module uses Decimal" in found.stdout


def test_one_letter_is_the_start_of_a_word(tmp_path):
    store = MemoryStore(Database(tmp_path / "k.sqlite3"))
    store.add("The currency module uses Decimal", "person")
    store.add("Releases are cut on Fridays", "person")
    assert [f.text for f in store.search("f")] == ["Releases are cut on Fridays"]
    assert [f.text for f in store.search("d")] == ["The currency module uses Decimal"]


def test_paicli_memory_search_finds_one_letter(tmp_path, paicli_home):
    ws = tmp_path / "ws"
    ws.mkdir()
    env = paicli_env(paicli_home)
    run_paicli(["memory", "add", "The currency module uses Decimal", "--workspace", str(ws)],
               home=paicli_home, cwd=ws, env=env)
    found = run_paicli(["memory", "search", "c", "--workspace", str(ws)], home=paicli_home, cwd=ws, env=env)
    assert found.returncode == 0, found.stderr
    assert "The currency module uses Decimal" in found.stdout
