"""Memory shared by every mode through the real Session (P-9.4): a fact
saved by the ReAct agent is found by a team worker's search_memory and
recalled into its first user message; planners and reviewers get neither
tools nor facts; a cancelled /plan run keeps no fact; a run writes no fact
by itself."""

from __future__ import annotations

import json
import threading

import pytest

from paicli_tui import events as ev
from paicli_tui.config.settings import Settings
from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
from paicli_tui.knowledge.memory.database import database_path
from paicli_tui.knowledge.memory.facts import MemoryStore
from paicli_tui.knowledge.memory.database import Database
from paicli_tui.session.live import Session
from paicli_tui.policy.approval import AutoApprover, DenyApprover
from tests.support.recorder import approve, done, task_plan, team_plan

pytestmark = pytest.mark.timeout(40)
FACT = "integration tests need the FAKE_SMTP server started with make smtp"


def _session(tmp_path, script: Script, **settings) -> tuple[Session, list]:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    config = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0, **settings)
    session = Session(config, workspace, approver=AutoApprover(), transport=ScriptedTransport(script))
    seen: list = []
    session.bus.subscribe(seen.append)
    return session, seen


def _tool_results(request) -> list[str]:
    return [m["content"] for m in request.messages if m.get("role") == "tool"]


def _first_user(request) -> str:
    return next(m["content"] for m in request.messages if m.get("role") == "user")


def test_a_fact_saved_in_react_is_found_by_a_team_worker(tmp_path):
    script = Script({
        "react": [Reply(tool_calls=[("save_memory", {"fact": FACT})]), Reply(content="noted")],
        "planner": [team_plan(("run the integration tests", []))],
        "worker": [Reply(tool_calls=[("search_memory", {"query": "integration tests smtp"})]),
                   done("started smtp, tests pass")],
        "reviewer": [approve()],
    })
    session, seen = _session(tmp_path, script)
    try:
        assert session.start_react("remember how the integration tests run").result(timeout=20).ok
        held = [e for e in seen if isinstance(e, ev.MemoryHeld)]  # auto mode: waits for the person's yes
        assert [(e.actor, e.text) for e in held] == [("react", FACT)]
        assert held[0].run == f"{session.session_id}/1"
        session.knowledge.keep_fact(held[0].fact_id)
        kept = [e for e in seen if isinstance(e, ev.MemorySaved)]
        assert [(e.actor, e.text, e.source) for e in kept] == [("session", FACT, "agent")]
        outcome = session.start_team("run the integration tests").result(timeout=20)
    finally:
        session.close()
    assert outcome.ok, outcome.text

    worker = [r for r in script.requests if r.agent.startswith("worker")]
    assert FACT in _tool_results(worker[1])[0]  # search_memory found it
    assert "saved by react in run" in _tool_results(worker[1])[0]
    assert "<paicli-memory>" in _first_user(worker[0]) and FACT in _first_user(worker[0])
    for request in script.requests:  # never in a system prompt (P-2.4)
        assert FACT not in request.messages[0]["content"]
    tool_less = [r for r in script.requests if r.agent == "planner" or r.agent.startswith("reviewer")]
    assert tool_less and all(r.tools is None for r in tool_less)
    assert all("<paicli-memory>" not in _first_user(r) for r in tool_less)
    assert {"save_memory", "search_memory", "search_code", "code_graph"} <= set(worker[0].tools)
    # The team run itself saved nothing: one fact, the one from ReAct.
    assert [f.text for f in MemoryStore(Database(database_path(tmp_path / "ws"))).recent()] == [FACT]


def test_a_cancelled_plan_keeps_no_fact(tmp_path):
    saved = threading.Event()
    script = Script({
        "planner": [task_plan(("look around", []), ("then this", ["t1"]))],
        "task_1": [Reply(tool_calls=[("save_memory", {"fact": "the build uses ninja"})]),
                   Reply(content="never finishes", delay=30)],
    })
    session, seen = _session(tmp_path, script)
    session.bus.subscribe(lambda e: saved.set() if isinstance(e, ev.ToolCallFinished) and e.tool == "save_memory" else None)
    try:
        future = session.start_plan("learn the build")
        assert saved.wait(15)
        session.cancel()
        outcome = future.result(timeout=20)
    finally:
        session.close()
    assert outcome.status == "CANCELLED"
    assert not any(isinstance(e, ev.MemorySaved) for e in seen)
    (discarded,) = [e for e in seen if isinstance(e, ev.MemoryDiscarded)]
    assert discarded.count == 1 and "cancelled" in discarded.reason
    assert not database_path(tmp_path / "ws").exists() or MemoryStore(Database(database_path(tmp_path / "ws"))).count() == 0


def test_a_completed_plan_keeps_its_task_facts_and_saves_nothing_by_itself(tmp_path):
    script = Script({
        "planner": [task_plan(("look around", []), ("summarise", ["t1"]))],
        "task_1": [Reply(tool_calls=[("save_memory", {"fact": "the build uses ninja"})]), Reply(content="seen it")],
        "task_2": [Reply(content="summary")],
    })
    session, seen = _session(tmp_path, script)
    try:
        outcome = session.start_plan("learn the build").result(timeout=20)
    finally:
        session.close()
    assert outcome.ok
    saved = [e for e in seen if isinstance(e, ev.MemoryHeld)]  # auto mode: stored, waiting for a yes
    assert [(e.actor, e.text) for e in saved] == [("task_1", "the build uses ninja")]
    names = [e.name for e in seen]
    assert names.index("memory_held") < names.index("run_outcome")  # stored before the outcome is recorded


def test_recalled_facts_change_the_user_message_not_the_system_prompt(tmp_path):
    script = Script({"react": [Reply(content="one"), Reply(content="two")]})
    session, _ = _session(tmp_path, script)
    try:
        assert session.start_react("how do I deploy?").result(timeout=20).ok
        session.knowledge.save_by_person("deploys go through staging first")
        assert session.start_react("and how do I deploy to production?").result(timeout=20).ok
    finally:
        session.close()
    first, second = script.requests
    assert first.messages[0] == second.messages[0]  # byte-identical system prompt
    assert "<paicli-memory>" not in first.messages[1]["content"]
    last_user = [m for m in second.messages if m["role"] == "user"][-1]["content"]
    assert last_user.startswith("<paicli-turn-context>")
    assert "deploys go through staging first" in last_user
    assert last_user.index("</paicli-turn-context>") < last_user.index("<paicli-memory>")


def test_the_person_reads_what_agents_kept_and_what_was_dropped():
    from paicli_tui.present.event_lines import argument_subject, describe

    kept = describe(ev.MemorySaved("task_1", 7, "the build uses ninja", "agent", "s/1"))
    assert kept is not None and "kept in memory as fact 7: the build uses ninja" in kept.text
    assert describe(ev.MemorySaved("session", 8, "mine", "person", "")) is None  # /save says so itself
    dropped = describe(ev.MemoryDiscarded("session", 2, "the run was cancelled"))
    assert dropped.text == "not kept in memory: 2 fact(s) saved by agents, because the run was cancelled"
    assert argument_subject('{"symbol": "Cart.total"}') == "Cart.total"


@pytest.mark.parametrize("answer,kept", [(DenyApprover(), 0), (AutoApprover(), 1)])
def test_in_ask_mode_a_fact_is_kept_only_with_the_person_s_yes(tmp_path, answer, kept):
    script = Script({"react": [Reply(tool_calls=[("save_memory", {"fact": FACT})]), Reply(content="ok")]})
    workspace = tmp_path / "ws"
    workspace.mkdir()
    config = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0,
                      approval_mode="ask")
    session = Session(config, workspace, approver=answer, transport=ScriptedTransport(script))
    asked: list = []
    session.bus.subscribe(lambda e: asked.append(e) if isinstance(e, ev.ApprovalRequested) else None)
    try:
        assert session.start_react("remember the smtp thing").result(timeout=20).ok
    finally:
        session.close()
    assert [e.tool for e in asked] == ["save_memory"]
    assert MemoryStore(Database(database_path(workspace))).count() == kept


def test_in_auto_mode_an_agent_s_fact_waits_for_the_person_and_is_not_recalled_until_kept(tmp_path):
    script = Script({"react": [Reply(tool_calls=[("save_memory", {"fact": FACT})]), Reply(content="noted"),
                               Reply(content="first answer"), Reply(content="second answer")]})
    session, seen = _session(tmp_path, script)  # auto mode, approver says yes to everything
    try:
        assert session.start_react("remember the smtp thing").result(timeout=20).ok
        held = [e for e in seen if isinstance(e, ev.MemoryHeld)]
        assert [(e.actor, e.text) for e in held] == [("react", FACT)]
        assert not [e for e in seen if isinstance(e, ev.MemorySaved)]
        names = [e.name for e in seen]
        assert names.index("memory_held") < names.index("run_outcome")
        store = MemoryStore(Database(database_path(tmp_path / "ws")))
        assert [f.text for f in store.pending()] == [FACT] and store.count() == 0
        assert session.start_react("how do the integration tests run with smtp?").result(timeout=20).ok
        session.knowledge.keep_fact(held[0].fact_id)
        assert session.start_react("how do the integration tests run with smtp?").result(timeout=20).ok
    finally:
        session.close()
    before, after = script.requests[2], script.requests[3]
    assert FACT not in [m for m in before.messages if m["role"] == "user"][-1]["content"]
    assert FACT in [m for m in after.messages if m["role"] == "user"][-1]["content"]
    from paicli_tui.present.event_lines import describe

    line = describe(held[0]).text
    assert "waits for your yes" in line and FACT in line and "/memory" in line


def test_the_facts_of_an_older_database_stay_kept_after_the_status_migration(tmp_path):
    import sqlite3

    from paicli_tui.knowledge.memory.database import MIGRATIONS, SCHEMA_VERSION

    path = tmp_path / "old.sqlite3"
    old = Database(path, migrations=MIGRATIONS[:2])
    old.connection().execute("INSERT INTO facts(text, source, agent, run, created) "
                             "VALUES ('written before pending facts existed', 'agent', 'react', 's/1', 1)")
    old.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 2
    store = MemoryStore(Database(path))
    assert store.db.version() == SCHEMA_VERSION == 3
    assert [(f.text, f.status) for f in store.recent()] == [("written before pending facts existed", "kept")]
    assert [f.text for f in store.search("pending facts")] == ["written before pending facts existed"]
