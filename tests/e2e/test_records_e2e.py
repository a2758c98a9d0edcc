"""Run records end to end: the real `paicli` against a loopback server, then
`replay --text`, `verify`, `report` and `sessions` on what it recorded."""

from __future__ import annotations

import json

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import run_paicli
from tests.support.server import LoopbackServer
from tests.support.recorder import StepResponder, broken, done, task_plan, team_plan

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(90)]


def _run(server, workspace, home, *args):
    return run_paicli(["run", "--yes", "--base-url", server.base_url, "--model", "m", "--workspace", str(workspace), *args],
                      home=home, cwd=workspace, timeout=45)


def _paicli(home, workspace, *args):
    return run_paicli(list(args), home=home, cwd=workspace, timeout=30)


def _marks(text: str) -> list[str]:
    """The lines a replay adds around each run (records/run_marks.py)."""
    return [line for line in text.splitlines() if line.startswith(("▷ run ", "■ run "))]


def _run_lines(text: str) -> str:
    """A replay's text without those lines: what the live run printed."""
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith(("▷ run ", "■ run ")))


def _only_session(home) -> str:
    (path,) = sorted((home / "history" / "raw").glob("*.jsonl"))
    return path.stem


def test_team_run_replays_as_the_same_text_and_verifies(workspace, paicli_home):
    script = Script({"planner": [team_plan(("A", []), ("B needs A", ["s1"]), ("C alone", []))]},
                    default=StepResponder("step_1"))
    with LoopbackServer(script) as server:
        live = _run(server, workspace, paicli_home, "--mode", "team", "--workers", "1", "A then B, and C")
    assert live.returncode == 0, live.stderr
    session = _only_session(paicli_home)

    replay = _paicli(paicli_home, workspace, "replay", session, "--text")
    assert replay.returncode == 0, replay.stderr
    assert _run_lines(replay.stdout) == live.stdout
    assert _marks(replay.stdout) == ["▷ run 1 · team · you: A then B, and C", "■ run 1 completed"]
    assert "◆ review step_1 attempt 1: rejected — - not yet" in replay.stdout
    assert "▶ step_1 → worker-1 (attempt 2)" in replay.stdout and "✅ step_2: B needs A" in replay.stdout

    verify = _paicli(paicli_home, workspace, "verify", session)
    assert verify.returncode == 0, verify.stdout
    assert verify.stdout.splitlines()[-1] == "ok: 18 rules hold"


def test_parallel_team_run_replays_the_same_lines(workspace, paicli_home):
    script = Script({"planner": [team_plan(("A", []), ("B needs A", ["s1"]), ("C alone", []))]},
                    default=StepResponder("step_1"))
    with LoopbackServer(script) as server:
        live = _run(server, workspace, paicli_home, "--mode", "team", "--workers", "2", "A then B, and C")
    assert live.returncode == 0, live.stderr
    replay = _paicli(paicli_home, workspace, "replay", _only_session(paicli_home), "--text", "--instant")
    # Two workers print from two threads: the same lines, maybe interleaved otherwise.
    assert sorted(_run_lines(replay.stdout).splitlines()) == sorted(live.stdout.splitlines())
    assert _paicli(paicli_home, workspace, "verify", _only_session(paicli_home)).returncode == 0


def test_react_run_replays_streamed_text_and_verifies(workspace, paicli_home):
    script = Script({"react": [Reply(tool_calls=[("read_file", {"path": "notes.txt"})]), Reply(content="It says alpha and beta.")]})
    with LoopbackServer(script) as server:
        live = _run(server, workspace, paicli_home, "what is in notes.txt?")
    assert live.returncode == 0, live.stderr
    session = _only_session(paicli_home)
    replay = _paicli(paicli_home, workspace, "replay", session, "--text")
    assert _run_lines(replay.stdout) == live.stdout and "It says alpha and beta." in replay.stdout
    assert _marks(replay.stdout) == ["▷ run 1 · react · you: what is in notes.txt?", "■ run 1 completed"]
    assert _paicli(paicli_home, workspace, "verify", session).returncode == 0


def test_plan_run_json_ends_with_the_report_that_report_prints(workspace, paicli_home):
    script = Script({
        "planner": [task_plan(("fetch", []), ("use it", ["t1"])), task_plan(("fetch again", []), ("use it", ["t1"]))],
        "task_1": [broken(), Reply(content="fetched")],
        "task_2": [Reply(content="used")],
    })
    with LoopbackServer(script) as server:
        live = _run(server, workspace, paicli_home, "--mode", "plan", "--json", "fetch and use")
    assert live.returncode == 0, live.stderr
    final = json.loads(live.stdout.splitlines()[-1])
    session = _only_session(paicli_home)
    assert final["event"] == "report" and final["session"] == session
    assert (final["kind"], final["ok"], final["status"], final["exit_code"]) == ("plan", True, "COMPLETED", 0)
    assert [(v["version"], v["origin"]) for v in final["plan_versions"]] == [(1, "initial"), (2, "replan")]
    assert final["totals"]["replans"] == 1

    report = _paicli(paicli_home, workspace, "report", "--json", session)
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout) == final
    assert [t["result"] for t in final["tasks"] if t["plan_version"] == 2] == ["fetched", "used"]

    table = _paicli(paicli_home, workspace, "report", session).stdout.splitlines()
    assert table[0] == "run 1 · plan · completed · fetch and use"
    header = next(i for i, line in enumerate(table) if line.startswith("TASK "))
    # Each task ran in its own tree, so the table says what it changed and whether it merged.
    assert table[header].split() == ["TASK", "STATUS", "WORKER", "TRIES", "VERDICTS", "TIME", "TOKENS", "COST",
                                     "CHANGES", "MERGED", "DESCRIPTION"]
    assert any(line.startswith("── task_2 ──") for line in table) and "used" in table
    markdown = _paicli(paicli_home, workspace, "report", "--markdown", session).stdout
    assert markdown.startswith("### run 1 · plan · completed · fetch and use")
    assert "| TASK | STATUS |" in markdown and "<details><summary>task_2</summary>" in markdown

    verify = _paicli(paicli_home, workspace, "verify", session)
    assert verify.returncode == 0, verify.stdout


def test_run_budget_flag_stops_dispatch_and_the_report_says_why(workspace, paicli_home):
    script = Script({
        "planner": [task_plan(("one", []), ("two", ["t1"]))],
        "task": [Reply(content="done"), Reply(content="done")],
    })
    with LoopbackServer(script) as server:
        live = _run(server, workspace, paicli_home, "--mode", "plan", "--json", "--run-max-tokens", "30", "two in a row")
    assert live.returncode == 1
    final = json.loads(live.stdout.splitlines()[-1])
    assert final["exit_reason"] == "stopped: run token limit reached (38/30 tokens)"
    assert final["limits"] == {"max_turns": 50, "run_max_tokens": 30}  # 50: the default per-agent turn limit
    assert [(t["id"], t["status"]) for t in final["tasks"]] == [("task_1", "COMPLETED"), ("task_2", "SKIPPED")]
    events = [json.loads(line)["event"] for line in live.stdout.splitlines()]
    assert "run_limit" in events


def test_verify_names_rule_and_line_of_a_tampered_ledger(workspace, paicli_home, tmp_path):
    script = Script({
        "planner": [team_plan(("A", []), ("B", ["s1"]))],
        "worker": [done("a"), done("b")],
        "reviewer": [Reply(content='{"approved": true, "summary": "ok", "issues": []}')] * 2,
    })
    with LoopbackServer(script) as server:
        assert _run(server, workspace, paicli_home, "--mode", "team", "A then B").returncode == 0
    path = next((paicli_home / "history" / "raw").glob("*.jsonl"))
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    at = next(i for i, line in enumerate(lines) if line["event"] == "review_verdict" and line["payload"]["step_id"] == "step_2")
    lines[at]["payload"]["approved"] = False
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    completed = next(i for i, line in enumerate(lines) if line["event"] == "status"
                     and (line["payload"]["task_id"], line["payload"]["status"]) == ("step_2", "COMPLETED"))

    verify = _paicli(paicli_home, workspace, "verify", str(tampered))
    assert verify.returncode == 1
    out = verify.stdout.splitlines()
    broken = out.index(next(line for line in out if line.startswith("✗")))
    assert out[broken].split()[:2] == ["✗", "review-approval"]
    assert out[broken + 1] == f"    line {completed + 1}: step_2 COMPLETED without an approving review_verdict for attempt 1"
    assert sum(line.startswith("✓ ") for line in out) == 17
    assert out[-1] == "1 of 18 rules broken: 1 violation"

    as_json = json.loads(_paicli(paicli_home, workspace, "verify", "--json", str(tampered)).stdout)
    assert not as_json["ok"] and len(as_json["rules"]) == 18
    (failed,) = [rule for rule in as_json["rules"] if not rule["ok"]]
    assert failed["rule"] == "review-approval" and failed["violations"][0]["line"] == completed + 1


def test_sessions_lists_runs_newest_first(workspace, paicli_home):
    with LoopbackServer(Script({"react": [Reply(content="one"), Reply(content="two")]})) as server:
        assert _run(server, workspace, paicli_home, "first goal").returncode == 0
        assert _run(server, workspace, paicli_home, "second goal").returncode == 0
    listed = _paicli(paicli_home, workspace, "sessions", "--json")
    data = json.loads(listed.stdout)
    assert [d["goal"] for d in data] == ["second goal", "first goal"]
    assert all(d["mode"] == "react" and d["outcome"] == "completed" and d["tokens"] == 19 for d in data)
    table = _paicli(paicli_home, workspace, "sessions").stdout.splitlines()
    assert "second goal" in table[1] and "first goal" in table[2]
