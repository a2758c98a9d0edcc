"""Memory and the code index end to end: the real `paicli` binary as
subprocesses against a loopback OpenAI-compatible server. `paicli index`
builds the index of a real tree; in a /plan task a scripted model calls
search_code and code_graph and gets ranked results naming each file; a fact
saved with `paicli memory add` reaches the task's first user message; the
run's ledger records it all and verifies."""

from __future__ import annotations

import json

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import events, ledger_lines, paicli_env, run_paicli
from tests.support.recorder import task_plan
from tests.support.server import LoopbackServer
from tests.support.shop_tree import write_shop

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def test_a_plan_task_searches_the_index_and_walks_the_graph(tmp_path, paicli_home):
    ws = write_shop(tmp_path / "ws")
    script = Script({
        "planner": [task_plan(("find where discounts are applied and who uses them", []))],
        "task_1": [
            Reply(tool_calls=[("search_code", {"query": "where is the discount applied"}),
                              ("code_graph", {"symbol": "apply_discount"})]),
            Reply(content="apply_discount in shop/pricing.py, called by Cart.total"),
        ],
    })
    env = paicli_env(paicli_home, PAICLI_MAX_RETRIES="0")
    with LoopbackServer(script) as server:
        index = run_paicli(["index", "--workspace", str(ws), "--base-url", server.base_url, "--json"],
                           home=paicli_home, cwd=ws, env=env, timeout=60)
        assert index.returncode == 0, index.stderr
        report = json.loads(index.stdout)
        assert report["added"] == 6 and report["complete"]
        # The loopback server has no /v1/embeddings: the index stays lexical.
        assert report["embeddings"].startswith("unavailable: ") and "HTTP 404" in report["embeddings"]
        saved = run_paicli(["memory", "add", "Discount rules are owned by the pricing team", "--workspace", str(ws)],
                           home=paicli_home, cwd=ws, env=env)
        assert saved.returncode == 0, saved.stderr
        run = run_paicli(["run", "--mode", "plan", "--yes", "--base-url", server.base_url, "--model", "m",
                          "--workspace", str(ws), "how are discounts applied?"],
                         home=paicli_home, cwd=ws, env=env, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr

    task = [r for r in script.requests if r.agent == "task_1"]
    assert {"search_code", "code_graph", "search_memory", "save_memory"} <= set(task[0].tools)
    first_user = next(m["content"] for m in task[0].messages if m["role"] == "user")
    assert "<paicli-memory>" in first_user and "Discount rules are owned by the pricing team" in first_user
    planner = next(r for r in script.requests if r.agent == "planner")
    assert planner.tools is None and "pricing team" not in json.dumps(planner.messages)

    search, graph = [m["content"] for m in task[1].messages if m["role"] == "tool"]
    ranked = [line for line in search.splitlines() if line[:1].isdigit()]
    assert ranked[0] == "1. shop/pricing.py:1-3 — apply_discount (function)"
    assert all(":" in line.split(" ")[1] for line in ranked)  # every hit names its path and lines
    assert "def apply_discount(amount):" in search
    assert "defined in (1):\n  shop/pricing.py:1-3 apply_discount (function)" in graph
    assert "called by (1):\n  shop/cart.py:13 in Cart.total" in graph
    assert "shop/checkout.py:2 shop" in graph  # `from shop import pricing` imports its module

    files = sorted((paicli_home / "history" / "raw").glob("*.jsonl"))
    lines = ledger_lines(paicli_home)
    results = {line["payload"]["tool"]: line["payload"] for line in events(lines, "tool_result")}
    assert results["search_code"]["ok"] and results["code_graph"]["ok"]
    assert results["search_code"]["summary"] == "4 results for where is the discount applied"
    recalled = events(lines, "memory_recalled")
    assert [line["actor"] for line in recalled] == ["task_1"]
    verify = run_paicli(["verify", str(files[0])], home=paicli_home, cwd=ws)
    assert verify.returncode == 0, verify.stdout
