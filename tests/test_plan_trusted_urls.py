"""In /plan, URLs a task's web_search found reach the tasks that declare a
dependency on it, once it completed, and nobody else (P-6.6). Real Session,
planner, executor and tools; the scripted model behind the real client; a
real search backend and page on 127.0.0.1."""

from __future__ import annotations

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.offline.scripted import Reply, Script, ScriptedTransport
from paicli_tui.session.live import Session
from paicli_tui.policy.approval import AutoApprover
from tests.support.http import SearchBackend, serve
from tests.support.recorder import task_plan


@pytest.fixture
def web():
    with serve(SearchBackend) as base_url:
        yield base_url


def _tool_results(script: Script, agent: str) -> list[str]:
    requests = [r for r in script.requests if r.agent == agent]
    return [m["content"] for m in requests[-1].messages if m.get("role") == "tool"]


def test_found_urls_reach_the_dependent_task_only(tmp_path, web):
    page = f"{web}/page"
    fetch = Reply(tool_calls=[("web_fetch", {"url": page})])
    script = Script({
        "planner": [task_plan(("search the docs", []), ("unrelated look", []), ("read what task_1 found", ["t1"]))],
        "task_1": [Reply(tool_calls=[("web_search", {"query": "docs"})]), Reply(content=f"found {page}")],
        "task_2": [fetch, Reply(content="could not")],
        "task_3": [fetch, Reply(content="read it")],
    })
    settings = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0,
                        search_url=web, parallelism=1)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    session = Session(settings, workspace, approver=AutoApprover(), transport=ScriptedTransport(script))
    try:
        outcome = session.start_plan("learn from the docs").result(timeout=20)
    finally:
        session.close()

    assert outcome.ok, outcome.text
    dependent_first = next(r for r in script.requests if r.agent == "task_3")
    assert f"Trusted URLs passed down: {page}" in dependent_first.messages[1]["content"]
    (fetched,) = _tool_results(script, "task_3")
    assert "the secret page body" in fetched
    (refused,) = _tool_results(script, "task_2")
    assert "refused" in refused and "the secret page body" not in refused
    sibling_first = next(r for r in script.requests if r.agent == "task_2")
    assert "Trusted URLs" not in sibling_first.messages[1]["content"]
