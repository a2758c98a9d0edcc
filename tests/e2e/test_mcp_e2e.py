"""MCP servers as tools and resources (P-9.1), end to end: the real `paicli
run` against a loopback model, with real MCP servers written with the SDK's
FastMCP — started by paicli over stdio, or by the test over streamable HTTP.
Every test checks that no server process outlives paicli."""

from __future__ import annotations

import json
import time

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.timing import scaled
from tests.support.cli import events, ledger_lines, paicli_env, run_paicli
from tests.support.mcp_config import HttpServer, assert_all_gone, http_table, stdio_table
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(150)]

#: The machine may be busy: importing the SDK can take seconds.
STARTUP = f'startup_timeout = {round(scaled(30))}\n'


def calls(*pairs) -> Reply:
    return Reply(tool_calls=list(pairs))


def configure(home, *tables: str, top: str = "", permissions: str = "") -> None:
    text = top + "[mcp]\n" + STARTUP + "\n" + "\n".join(tables) + permissions
    (home / "config.toml").write_text(text, encoding="utf-8")


def run(home, workspace, server, goal: str, *flags: str, timeout: float = 120):
    return run_paicli(["run", "--base-url", server.base_url, "--model", "m", *flags, goal], home=home, cwd=workspace,
                      timeout=timeout, env=paicli_env(home))


def tool_messages(request) -> list[str]:
    return [m["content"] for m in request.messages if m.get("role") == "tool"]


def results(lines) -> list[tuple[str, bool, str]]:
    return [(e["payload"]["tool"], e["payload"]["ok"], e["payload"]["content"]) for e in events(lines, "tool_result")]


def test_tools_of_a_stdio_and_an_http_server_are_offered_with_their_schema_and_called(workspace, paicli_home, tmp_path):
    pidfile = tmp_path / "pids"
    script = Script({"react": [
        calls(("mcp__local__add", {"a": 2, "b": 3}), ("mcp__remote__echo", {"text": "over http"})),
        Reply(content="both answered"),
    ]})
    with HttpServer() as http, LoopbackServer(script) as model:
        configure(paicli_home, stdio_table("local", "--pidfile", str(pidfile)), http_table("remote", http.url))
        done = run(paicli_home, workspace, model, "add and echo")
    assert done.returncode == 0, done.stderr
    assert_all_gone(pidfile, 1)
    first = script.requests[0]
    offered = {t["function"]["name"]: t["function"] for t in first.body["tools"]}
    assert {"read_file", "mcp__local__add", "mcp__local__note", "mcp__remote__echo"} <= set(offered)
    add = offered["mcp__local__add"]
    assert add["parameters"]["properties"]["a"]["type"] == "integer" and add["parameters"]["required"] == ["a", "b"]
    assert add["description"].startswith("[MCP server local] Add two whole numbers")
    answers = tool_messages(script.requests[1])
    assert answers == ['<tool-result trust="untrusted-data">\n5\n</tool-result>',
                       '<tool-result trust="untrusted-data">\necho: over http\n</tool-result>']
    lines = ledger_lines(paicli_home)
    assert [(t, ok) for t, ok, _ in results(lines)] == [("mcp__local__add", True), ("mcp__remote__echo", True)]
    ready = {e["payload"]["server"]: e["payload"] for e in events(lines, "mcp_server") if e["payload"]["state"] == "ready"}
    assert ready["local"]["transport"] == "stdio" and ready["local"]["pid"] == int(pidfile.read_text().split()[0])
    assert ready["remote"]["transport"] == "http" and "mcp__remote__slow" in ready["remote"]["tools"]


def test_a_schema_violation_is_refused_before_the_server_sees_it(workspace, paicli_home, tmp_path):
    log, pidfile = tmp_path / "calls", tmp_path / "pids"
    script = Script({"react": [
        calls(("mcp__local__add", {"a": "two", "b": 3}), ("mcp__local__add", {"a": 1}),
              ("mcp__local__echo", "{not json")),
        Reply(content="gave up"),
    ]})
    with LoopbackServer(script) as model:
        configure(paicli_home, stdio_table("local", "--calls", str(log), "--pidfile", str(pidfile)))
        done = run(paicli_home, workspace, model, "add badly")
    assert done.returncode == 0, done.stderr
    assert_all_gone(pidfile, 1)
    outcomes = results(ledger_lines(paicli_home))
    assert [ok for _, ok, _ in outcomes] == [False, False, False]
    assert "invalid arguments for mcp__local__add: a: 'two' is not of type 'integer'" in outcomes[0][2]
    assert "invalid arguments for mcp__local__add: 'b' is a required property" in outcomes[1][2]
    assert "not valid JSON" in outcomes[2][2]
    assert not log.exists() or log.read_text() == ""  # the server was never called


def test_a_server_that_dies_mid_call_is_a_failed_result_and_the_other_server_goes_on(workspace, paicli_home, tmp_path):
    pidfile = tmp_path / "pids"
    script = Script({"react": [
        calls(("mcp__fragile__crash", {}), ("mcp__fragile__echo", {"text": "after"}), ("mcp__steady__echo", {"text": "ok"})),
        Reply(content="one server is gone"),
    ]})
    with LoopbackServer(script) as model:
        configure(paicli_home, stdio_table("fragile", "--pidfile", str(pidfile)),
                  stdio_table("steady", "--pidfile", str(pidfile)))
        done = run(paicli_home, workspace, model, "crash it", "--yes")
    assert done.returncode == 0, done.stderr
    assert "one server is gone" in done.stdout
    assert_all_gone(pidfile, 2)
    outcomes = results(ledger_lines(paicli_home))
    assert [(tool, ok) for tool, ok, _ in outcomes] == [("mcp__fragile__crash", False), ("mcp__fragile__echo", False),
                                                       ("mcp__steady__echo", True)]
    assert "MCP server fragile connection lost" in outcomes[0][2]
    assert "MCP server fragile is exited" in outcomes[1][2] and "/mcp" in outcomes[1][2]
    warning = [line for line in done.stderr.splitlines() if "fragile" in line]
    assert len(warning) == 1 and "MCP server fragile stopped working" in warning[0], done.stderr
    assert "about to crash on purpose" in warning[0]  # the server's last stderr line says why


def test_servers_that_never_start_warn_once_each_and_the_rest_works(workspace, paicli_home, tmp_path):
    pidfile = tmp_path / "pids"
    script = Script({"react": [calls(("mcp__good__add", {"a": 1, "b": 1}), ("mcp__ghost__echo", {"text": "x"})),
                               Reply(content="good enough")]})
    with LoopbackServer(script) as model:
        configure(paicli_home, stdio_table("good", "--pidfile", str(pidfile)),
                  '[mcp.servers.ghost]\ncommand = "no-such-mcp-server-program"\n',
                  stdio_table("stuck", "--hang", "--pidfile", str(pidfile)),
                  http_table("gone", "http://127.0.0.1:9/mcp"))
        stuck_for = round(scaled(12))  # long enough for "good" to start on a loaded machine
        text = (paicli_home / "config.toml").read_text().replace(STARTUP, f"startup_timeout = {stuck_for}\n")
        (paicli_home / "config.toml").write_text(text)
        started = time.monotonic()
        done = run(paicli_home, workspace, model, "use what works")
        took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert_all_gone(pidfile, 2)
    assert took < scaled(60)
    warnings = [line for line in done.stderr.splitlines() if "did not start" in line]
    assert len(warnings) == 3, done.stderr
    assert any("ghost" in w and "command 'no-such-mcp-server-program' not found" in w for w in warnings)
    assert any("stuck" in w and f"did not start within {stuck_for} s" in w for w in warnings)
    assert any("gone" in w and "cannot connect" in w for w in warnings)
    outcomes = results(ledger_lines(paicli_home))
    assert outcomes[0][:2] == ("mcp__good__add", True)
    assert outcomes[1][:2] == ("mcp__ghost__echo", False) and "unknown tool" in outcomes[1][2]


def test_calls_run_one_at_a_time_in_the_order_the_model_gave(workspace, paicli_home, tmp_path):
    log, pidfile = tmp_path / "calls", tmp_path / "pids"
    script = Script({"react": [
        calls(("mcp__local__note", {"text": "first", "delay": 0.6}), ("mcp__local__echo", {"text": "second"}),
              ("mcp__local__note", {"text": "third"}), ("mcp__local__add", {"a": 4, "b": 4})),
        Reply(content="in order"),
    ]})
    with LoopbackServer(script) as model:
        configure(paicli_home, stdio_table("local", "--calls", str(log), "--pidfile", str(pidfile)))
        done = run(paicli_home, workspace, model, "four calls", "--yes")
    assert done.returncode == 0, done.stderr
    assert_all_gone(pidfile, 1)
    assert log.read_text().splitlines() == ["start first", "end first", "echo second", "start third", "end third",
                                            "add 4 4"]
    lines = ledger_lines(paicli_home)
    order = [(e["event"], e["payload"]["call_id"]) for e in lines if e["event"] in ("tool_call", "tool_result")]
    ids = [call_id for _, call_id in order[::2]]
    assert order == [pair for call_id in ids for pair in (("tool_call", call_id), ("tool_result", call_id))]


def test_the_resource_index_ends_tool_agents_prompts_and_never_reaches_the_planner(workspace, paicli_home, tmp_path):
    pidfile = tmp_path / "pids"
    plan = json.dumps({"summary": "s", "tasks": [{"id": "task_1", "description": "look", "type": "ANALYSIS",
                                                   "dependencies": []}]})
    script = Script({"planner": [Reply(content=plan)], "task": [Reply(content="looked")]})
    with LoopbackServer(script) as model:
        configure(paicli_home, stdio_table("docs", "--pidfile", str(pidfile)))
        done = run(paicli_home, workspace, model, "look around", "--mode", "plan", "--yes")
    assert done.returncode == 0, done.stderr
    assert_all_gone(pidfile, 1)
    by_agent = {r.agent: r for r in script.requests}
    system = by_agent["task_1"].messages[0]["content"]
    index = system[system.index("## MCP Resources"):]
    assert index.rstrip().endswith("- @docs:docs://guide — The project guide\n- @docs:docs://big — A very long document")
    assert system.rstrip().endswith(index.rstrip())  # the last section
    assert "mcp__docs__echo" in by_agent["task_1"].tools
    planner = by_agent["planner"]
    assert "MCP Resources" not in planner.messages[0]["content"] and not planner.tools
    verified = run_paicli(["verify", next((paicli_home / "history" / "raw").glob("*.jsonl")).stem], home=paicli_home,
                          cwd=workspace)
    assert verified.returncode == 0, verified.stdout


def test_at_server_uri_attaches_the_resource_bounded_and_says_what_could_not_be(workspace, paicli_home, tmp_path):
    pidfile = tmp_path / "pids"
    script = Script({"react": [calls(("web_fetch", {"url": "https://guide.example.invalid/more"})),
                               Reply(content="read them")]})
    with LoopbackServer(script) as model:
        configure(paicli_home, stdio_table("docs", "--pidfile", str(pidfile)))
        text = (paicli_home / "config.toml").read_text().replace("[mcp]\n", "[mcp]\nmax_resource_chars = 1000\n")
        (paicli_home / "config.toml").write_text(text)
        done = run(paicli_home, workspace, model,
                   "summarise @docs:docs://guide, then @docs:docs://big. Skip @docs:docs://missing and me@example.com")
    assert done.returncode == 0, done.stderr
    assert_all_gone(pidfile, 1)
    user = script.requests[0].messages[1]["content"]
    assert "https://guide.example.invalid/more" in user
    assert "summarise @docs:docs://guide, then @docs:docs://big." in user
    assert ('<mcp-resource server="docs" uri="docs://guide" trust="untrusted-data">\n'
            "GUIDE-CONTENT: indent with tabs; run the tests before you push. More: https://guide.example.invalid/more\n"
            "</mcp-resource>") in user
    big = user[user.index('uri="docs://big"'):]
    assert "x" * 1000 in big and "x" * 1001 not in big and "[… cut by paicli at 1000 characters]" in big
    assert "[@docs:docs://missing could not be attached:" in user
    [fetch] = results(ledger_lines(paicli_home))  # a URL in an attached resource was not typed by the person
    assert fetch[0] == "web_fetch" and not fetch[1] and "https://guide.example.invalid/more" in fetch[2]
    assert fetch[2].startswith("refused: URL not provided by the user")
    attached = [e["payload"] for e in events(ledger_lines(paicli_home), "mcp_resource")]
    assert [(a["uri"], a["ok"], a["truncated"]) for a in attached] == [
        ("docs://guide", True, False), ("docs://big", True, True), ("docs://missing", False, False)]
    assert "@docs:docs://missing not attached" in done.stderr
    run_requested = events(ledger_lines(paicli_home), "run_requested")[0]["payload"]
    assert "GUIDE-CONTENT" not in run_requested["goal"]  # the goal is what was typed


@pytest.mark.parametrize("mode, flags, asked, ran", [
    ("auto", [], ["mcp__local__note"], ["mcp__local__echo"]),
    ("ask", [], ["mcp__local__note", "mcp__local__echo"], []),
    ("auto", ["--yes"], ["mcp__local__note"], ["mcp__local__note", "mcp__local__echo"]),
    ("ask", ["--yes"], ["mcp__local__note", "mcp__local__echo"], ["mcp__local__note", "mcp__local__echo"]),
])
def test_approvals_in_each_mode(workspace, paicli_home, tmp_path, mode, flags, asked, ran):
    """auto: a tool its server marks read-only runs unasked, any other asks;
    ask: every MCP call asks; headless without --yes nobody can answer: denied."""
    pidfile = tmp_path / "pids"
    script = Script({"react": [calls(("mcp__local__note", {"text": "n"}), ("mcp__local__echo", {"text": "e"})),
                               Reply(content="over")]})
    with LoopbackServer(script) as model:
        configure(paicli_home, stdio_table("local", "--pidfile", str(pidfile)))
        done = run(paicli_home, workspace, model, "note and echo", "--approval", mode, *flags)
    assert done.returncode == 0, done.stderr
    assert_all_gone(pidfile, 1)
    lines = ledger_lines(paicli_home)
    assert [e["payload"]["tool"] for e in events(lines, "approval_requested")] == asked
    assert [tool for tool, ok, _ in results(lines) if ok] == ran
    if not flags:
        denied = [content for tool, ok, content in results(lines) if not ok]
        assert denied and all("denied (no terminal to ask)" in content for content in denied)


def test_an_allow_rule_or_distrust_of_read_only_marks_changes_what_asks(workspace, paicli_home, tmp_path):
    pidfile = tmp_path / "pids"
    script = Script({"react": [calls(("mcp__local__note", {"text": "n"}), ("mcp__wary__echo", {"text": "e"})),
                               Reply(content="over")]})
    with LoopbackServer(script) as model:
        configure(paicli_home, stdio_table("local", "--pidfile", str(pidfile)),
                  stdio_table("wary", "--pidfile", str(pidfile), trust_read_only=False),
                  permissions='\n[permissions]\nallow = ["tool: mcp__local__*"]\n')
        done = run(paicli_home, workspace, model, "note and echo")
    assert done.returncode == 0, done.stderr
    assert_all_gone(pidfile, 2)
    lines = ledger_lines(paicli_home)
    decided = [(e["payload"]["tool"], e["payload"]["decision"]) for e in events(lines, "approval_decided")]
    assert decided == [("mcp__local__note", "auto-approved"), ("mcp__wary__echo", "no")]
    assert [(tool, ok) for tool, ok, _ in results(lines)] == [("mcp__local__note", True), ("mcp__wary__echo", False)]


def _newest_ledger(home):
    from paicli_tui.records.ledger import read_ledger

    path = max((home / "history" / "raw").glob("*.jsonl"), key=lambda p: p.stat().st_mtime_ns)
    return [line.data for line in read_ledger(path)]


def test_a_workspace_mcp_json_starts_only_once_the_person_agreed_to_that_file(workspace, paicli_home, tmp_path):
    from paicli_tui.mcp.trust import trust
    from tests.support.mcp_config import stdio_json

    pidfile = tmp_path / "pids"
    config = {"mcpServers": {"repo": stdio_json("--pidfile", str(pidfile))}}
    (workspace / ".mcp.json").write_text(json.dumps(config), encoding="utf-8")
    script = Script(default=lambda request: Reply(content="fine"))
    with LoopbackServer(script) as model:
        refused = run(paicli_home, workspace, model, "hello", "--yes")  # --yes approves calls, never a repo's servers
        assert refused.returncode == 0, refused.stderr
        note = [line for line in refused.stderr.splitlines() if ".mcp.json" in line]
        assert len(note) == 1 and "start only once you agree" in note[0] and "--trust-mcp" in note[0]
        assert not any(name.startswith("mcp__") for name in script.requests[-1].tools)
        assert not pidfile.exists()
        states = [e["payload"]["state"] for e in events(_newest_ledger(paicli_home), "mcp_server")]
        assert states == ["untrusted"]

        flagged = run(paicli_home, workspace, model, "hello", "--trust-mcp")
        assert flagged.returncode == 0, flagged.stderr
        assert "mcp__repo__echo" in script.requests[-1].tools
        trusted = events(_newest_ledger(paicli_home), "mcp_trusted")
        assert [(t["payload"]["servers"], t["payload"]["remembered"]) for t in trusted] == [(["repo"], False)]
        assert_all_gone(pidfile, 1)
        pidfile.unlink()

        run(paicli_home, workspace, model, "hello")  # the flag remembered nothing
        assert not pidfile.exists()

        from paicli_tui.mcp.specs import load_mcp_config
        from paicli_tui.config.mcp_settings import McpSettings

        trust(workspace, load_mcp_config(McpSettings(), workspace).workspace_sha256)
        agreed = run(paicli_home, workspace, model, "hello")
        assert agreed.returncode == 0 and ".mcp.json" not in agreed.stderr, agreed.stderr
        assert "mcp__repo__echo" in script.requests[-1].tools
        assert [t["payload"]["remembered"] for t in events(_newest_ledger(paicli_home), "mcp_trusted")] == [True]
        assert_all_gone(pidfile, 1)
        pidfile.unlink()

        config["mcpServers"]["repo"]["args"].append("--name=changed")
        (workspace / ".mcp.json").write_text(json.dumps(config), encoding="utf-8")
        changed = run(paicli_home, workspace, model, "hello")
        assert "start only once you agree" in changed.stderr
        assert not pidfile.exists()


def test_team_workers_get_the_tools_and_the_index_the_planner_and_reviewer_never_do(workspace, paicli_home, tmp_path):
    from tests.support.recorder import approve, done, team_plan

    pidfile = tmp_path / "pids"
    script = Script({"planner": [team_plan(("echo through the server", []))],
                     "worker": [calls(("mcp__docs__echo", {"text": "from a worker"})), done("echoed")],
                     "reviewer": [approve()]})
    with LoopbackServer(script) as model:
        configure(paicli_home, stdio_table("docs", "--pidfile", str(pidfile)))
        finished = run(paicli_home, workspace, model, "echo it", "--mode", "team", "--yes")
    assert finished.returncode == 0, finished.stderr
    assert_all_gone(pidfile, 1)
    for request in script.requests:
        system = request.messages[0]["content"]
        if request.agent.startswith("worker"):
            assert "mcp__docs__echo" in request.tools and "- @docs:docs://guide — The project guide" in system
        else:
            assert not request.tools and "MCP Resources" not in system, request.agent
    assert {r.agent.split("-")[0] for r in script.requests} == {"planner", "worker", "reviewer"}
    outcomes = results(ledger_lines(paicli_home))
    assert outcomes == [("mcp__docs__echo", True, "echo: from a worker")]
