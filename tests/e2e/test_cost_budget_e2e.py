"""Money budgets end to end: `paicli run` as a subprocess against the
loopback server, priced from ``[prices."MODEL"]`` in config.toml. The run's
cost limit cuts a streaming reply at the limit, the run stops dispatching
and names the limit, and the ledger verifies; a limit without a price is
refused in one line; a time budget's summary ends inside the budget."""

from __future__ import annotations

import json
import time

import pytest

from paicli_tui.llm.offline.scripted import Reply
from tests.support.cli import events, ledger_lines, run_paicli
from tests.support.server import LoopbackServer, RawReply, pings_forever, tokens_every

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

#: $1 per thousand tokens either way: a few thousand tokens reach cents.
PRICE = '[prices."m"]\nprompt = 1000.0\ncompletion = 1000.0\n'


def ledger_path(home):
    return sorted((home / "history" / "raw").glob("*.jsonl"))[0]


class Responder:
    """The planner gets a two-task plan; task_1 streams words without end."""

    def __init__(self) -> None:
        self.agents: list[str] = []

    def __call__(self, request):
        self.agents.append(request.agent)
        if request.agent == "planner":
            plan = {"summary": "two", "tasks": [
                {"id": "a", "description": "write a long essay", "type": "ANALYSIS", "dependencies": []},
                {"id": "b", "description": "summarise it", "type": "ANALYSIS", "dependencies": ["a"]}]}
            return Reply(content=json.dumps(plan))
        if request.agent == "task_1":
            return RawReply(tokens_every(0.002, 20000))
        return Reply(content="should never be asked")


def test_a_run_cost_limit_cuts_the_stream_stops_dispatching_and_names_the_limit(workspace, paicli_home):
    (paicli_home / "config.toml").write_text(PRICE)
    responder = Responder()
    with LoopbackServer(responder) as server:
        started = time.monotonic()
        proc = run_paicli(["run", "--mode", "plan", "--yes", "--base-url", server.base_url, "--model", "m",
                           "--workspace", str(workspace), "--run-max-cost", "12", "write an essay"],
                          home=paicli_home, cwd=workspace, timeout=100)
        elapsed = time.monotonic() - started
    assert elapsed < 60, f"ran {elapsed:.1f} s"  # 20,000 words at 2 ms would take 40 s and more
    assert "task_2" not in responder.agents and responder.agents.count("task_1") == 1
    assert "stopped at the run's $12.00 cost limit" in proc.stdout + proc.stderr
    lines = ledger_lines(paicli_home)
    assert [line["payload"]["kind"] for line in events(lines, "model_error")] == ["budget"]
    (limit,) = events(lines, "run_limit")
    assert limit["payload"]["limit"] == "cost" and "$12.00 cost limit" in limit["payload"]["reason"]
    notes = [line["payload"]["text"] for line in events(lines, "agent_note")]
    assert any("no summary call: it would go past the limit" in note for note in notes), notes
    verify = run_paicli(["verify", str(ledger_path(paicli_home))], home=paicli_home, cwd=workspace)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "✓ cost-limit" in verify.stdout


def test_verify_fails_a_ledger_with_a_model_call_after_the_cost_limit(workspace, paicli_home):
    (paicli_home / "config.toml").write_text(PRICE)
    with LoopbackServer(Responder()) as server:
        run_paicli(["run", "--mode", "plan", "--yes", "--base-url", server.base_url, "--model", "m",
                    "--workspace", str(workspace), "--run-max-cost", "12", "write an essay"],
                   home=paicli_home, cwd=workspace, timeout=100)
    path = ledger_path(paicli_home)
    lines = path.read_text().splitlines()
    request = next(text for text in lines if json.loads(text)["event"] == "model_request"
                   and json.loads(text)["actor"] == "task_1")
    # A forged call after the stop: the same request once more, at the end of the run.
    data = json.loads(request)
    at = max(index for index, text in enumerate(lines) if json.loads(text)["event"] == "run_limit") + 1
    data["seq"] = json.loads(lines[at])["seq"]
    shifted = [data] + [{**json.loads(text), "seq": json.loads(text)["seq"] + 1} for text in lines[at:]]
    path.write_text("\n".join([*lines[:at], *(json.dumps(item) for item in shifted)]) + "\n")
    verify = run_paicli(["verify", str(path)], home=paicli_home, cwd=workspace)
    assert verify.returncode != 0
    assert "✗ cost-limit" in verify.stdout and "task_1 called the model after the run's cost limit" in verify.stdout


@pytest.mark.parametrize("flag", ["--max-cost", "--run-max-cost"])
def test_a_cost_limit_without_a_price_is_refused_in_one_line(workspace, paicli_home, flag):
    proc = run_paicli(["run", "--base-url", "http://127.0.0.1:9/v1", "--model", "unpriced-model",
                       "--workspace", str(workspace), flag, "0.5", "hello"], home=paicli_home, cwd=workspace,
                      timeout=30)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "no price is known for model 'unpriced-model'" in lines[0]
    assert '[prices."unpriced-model"]' in lines[0]


def test_an_agent_cost_limit_cuts_a_react_turn(workspace, paicli_home):
    (paicli_home / "config.toml").write_text(PRICE)
    with LoopbackServer(lambda request: RawReply(tokens_every(0.002, 20000))) as server:
        proc = run_paicli(["run", "--base-url", server.base_url, "--model", "m", "--workspace", str(workspace),
                           "--max-cost", "9", "read the notes"], home=paicli_home, cwd=workspace, timeout=100)
    assert proc.returncode == 1, proc.stderr
    (finished,) = events(ledger_lines(paicli_home), "agent_finished")
    assert finished["payload"]["status"] == "partial"
    assert "stopped at the turn's $9.00 cost limit" in finished["payload"]["reason"]


def test_max_seconds_is_a_wall_clock_cap_summary_included(workspace, paicli_home):
    """A server that only pings: the work call is cut at the budget less the
    summary's slice and the summary call at the budget itself (it was 17.5 s)."""
    with LoopbackServer(lambda request: RawReply(pings_forever(0.2))) as server:
        started = time.monotonic()
        proc = run_paicli(["run", "--base-url", server.base_url, "--model", "m", "--workspace", str(workspace),
                           "--max-seconds", "5", "read the notes"], home=paicli_home, cwd=workspace, timeout=60)
        elapsed = time.monotonic() - started
    assert proc.returncode == 1
    lines = ledger_lines(paicli_home)
    requests = events(lines, "model_request")
    turn = lines[-1]["ts"] - requests[0]["ts"]
    assert turn < 5.6, f"the turn took {turn:.1f} s"
    # Start-up and shutdown included; it was 17.5 s (5 s, then a 10 s summary, then start-up).
    assert elapsed < 15, f"the process took {elapsed:.1f} s"
    notes = [line["payload"]["text"] for line in events(lines, "agent_note")]
    assert notes == ["[stopped] time limit reached (5s, the last 1.25s kept for the summary); asking for a summary"]
    assert [line["payload"]["kind"] for line in events(lines, "model_error")] == ["deadline", "deadline"]
