"""The compact local profile end to end: the real binary against the
loopback OpenAI-compatible server on 127.0.0.1 (a server on this machine,
so the profile is on by default). Assertions on the requests the server
recorded: each task offered only its type's tools with one-line
descriptions, one prefix shared by every worker of a run, a request within
the bound, the full prompt back with ``local_profile = "off"``."""

from __future__ import annotations

import json

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.prompting.compact import WORKER_PROMPT_TOKENS, request_text
from tests.support.cli import events, ledger_lines, paicli_env, run_paicli
from tests.support.recorder import approve, done, team_plan
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(60)]

#: The fewest characters a token of this prose holds on common tokenizers:
#: a request under this many characters is surely under the token bound
#: (the real server's own count is checked in test_real_llama_server.py).
BOUND_CHARS = WORKER_PROMPT_TOKENS * 3


def _plan(*tasks: tuple[str, str]) -> Reply:
    entries = [{"id": f"t{i}", "description": d, "type": kind, "dependencies": []} for i, (d, kind) in enumerate(tasks, 1)]
    return Reply(content=json.dumps({"summary": "the plan", "tasks": entries}))


def _run(server, workspace, home, mode, goal, **env):
    return run_paicli(
        ["run", "--mode", mode, "--yes", "--base-url", server.base_url, "--model", "m", "--workspace", str(workspace), goal],
        home=home, cwd=workspace, timeout=45, env=paicli_env(home, **env),
    )


def _request_size(request) -> int:
    return len(request_text(request.messages[0]["content"], request.body.get("tools") or []))


def _first(script: Script, agent: str):
    return next(r for r in script.requests if r.agent == agent)


def test_each_task_gets_its_types_tools_and_every_task_starts_with_the_same_prefix(workspace, paicli_home):
    script = Script({
        "planner": [_plan(("look at the code", "ANALYSIS"), ("run the tests", "COMMAND"))],
        # The analysis task tries a write its type was not given.
        "task_1": [Reply(tool_calls=[("write_file", {"path": "x.txt", "content": "no"})]), Reply(content="looked")],
        "task_2": [Reply(content="ran")],
    })
    with LoopbackServer(script) as server:
        proc = _run(server, workspace, paicli_home, "plan", "look and test", PAICLI_PARALLELISM="1")
    assert proc.returncode in (0, 1), proc.stderr
    first, second = _first(script, "task_1"), _first(script, "task_2")
    assert sorted(first.tools) == sorted(["read_file", "list_dir", "glob_files", "grep_code", "search_code", "code_graph",
                                          "save_memory", "search_memory"])
    assert second.tools == ["read_file", "list_dir", "execute_command"]
    for request in (first, second):
        for tool in request.body["tools"]:
            assert "\n" not in tool["function"]["description"] and len(tool["function"]["description"]) <= 100
            assert all("description" not in spec for spec in tool["function"]["parameters"]["properties"].values())
        assert _request_size(request) <= BOUND_CHARS, request.messages[0]["content"]
    # The tasks' prompts are one text up to the task type, which comes last.
    one, two = first.messages[0]["content"], second.messages[0]["content"]
    shared = one[: one.index("## Task Type")]
    assert two.startswith(shared) and len(shared) > 400
    assert one.rstrip().endswith("ANALYSIS") and two.rstrip().endswith("COMMAND")
    refused = [line["payload"] for line in events(ledger_lines(paicli_home), "tool_result")]
    assert refused and not refused[0]["ok"] and "not offered" in refused[0]["content"]
    assert not (workspace / "x.txt").exists()


def test_two_team_workers_send_the_same_bytes_before_their_step(workspace, paicli_home):
    script = Script({
        "planner": [team_plan(("first thing", []), ("second thing", []))],
        "worker": [done("ok 1"), done("ok 2")],
        "reviewer": [approve(), approve()],
    })
    with LoopbackServer(script) as server:
        proc = _run(server, workspace, paicli_home, "team", "two things", PAICLI_TEAM_REVIEW="false")
    assert proc.returncode == 0, proc.stderr
    one, two = _first(script, "worker-1"), _first(script, "worker-2")
    assert one.messages[0] == two.messages[0] and one.body["tools"] == two.body["tools"]
    assert one.messages[1]["content"] != two.messages[1]["content"], "the step itself comes after the shared part"
    assert "web_fetch" not in one.tools and "write_file" in one.tools
    assert _request_size(one) <= BOUND_CHARS


def test_the_profile_turned_off_sends_the_full_prompt_and_every_tool(workspace, paicli_home):
    script = Script({
        "planner": [_plan(("look at the code", "ANALYSIS"))],
        "task_1": [Reply(content="looked")],
    })
    with LoopbackServer(script) as server:
        proc = _run(server, workspace, paicli_home, "plan", "look", PAICLI_LOCAL_PROFILE="off")
    assert proc.returncode == 0, proc.stderr
    request = _first(script, "task_1")
    assert "## Tool Policy" in request.messages[0]["content"] and "web_fetch" in request.tools
    assert _request_size(request) > BOUND_CHARS


@pytest.mark.parametrize("mode", ["plan", "team"])
def test_the_planner_is_sent_the_short_planner_prompt_and_its_plan_runs(mode, workspace, paicli_home):
    (workspace / "PAI.md").write_text("Keep every module under 300 lines.\n" * 200)
    planner = _plan(("look at the code", "ANALYSIS")) if mode == "plan" else team_plan(("look at the code", []))
    script = Script({"planner": [planner], "task_1": [Reply(content="looked")], "worker": [done("looked")],
                     "reviewer": [approve()]})
    with LoopbackServer(script) as server:
        proc = _run(server, workspace, paicli_home, mode, "look", PAICLI_TEAM_REVIEW="false")
    assert proc.returncode == 0, proc.stderr
    prompt = _first(script, "planner").messages[0]["content"]
    # The full planner prompt is over 4,000 characters before any PAI.md.
    assert len(prompt) <= 2_600, prompt
    assert "Ids are t1, t2" in prompt and "Keep every module under 300 lines." in prompt
    assert ("reviewer checks" in prompt) == (mode == "team")

