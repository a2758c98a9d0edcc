"""Budgets hold during a streaming call (issue 12, class 4), end to end: the
real `paicli run` as a subprocess against a loopback server that keeps a
stream open with pings or trickles one token a second, and a model that
never stops calling tools.

The time bounds are correctness bounds (the bug ran 46 s and, with pings,
forever), far above the expected few seconds. They are read from the
ledger, first line to last: the run itself, not the interpreter starting,
which on a loaded machine alone takes several seconds; the whole process
gets the same bound stretched with the load."""

from __future__ import annotations

import time

import pytest

from paicli_tui.llm.offline.scripted import Reply
from tests.support.cli import events, ledger_lines, run_paicli
from tests.support.server import LoopbackServer, RawReply, pings_forever, tokens_every
from tests.support.timing import scaled

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(90)]


class FirstSlow:
    """The first call gets ``first``; later ones (the summary) ``later``."""

    def __init__(self, first, later) -> None:
        self.first, self.later, self.calls = first, later, 0

    def __call__(self, request):
        self.calls += 1
        return self.first if self.calls == 1 else self.later


def _ran_for(lines: list[dict]) -> float:
    """Seconds from the ledger's first line to its last."""
    return float(lines[-1]["ts"]) - float(lines[0]["ts"])


def _assert_cut_off(lines: list[dict], elapsed: float, bound: float) -> None:
    assert _ran_for(lines) < bound, f"the run went on for {_ran_for(lines):.1f} s"
    assert elapsed < scaled(bound), f"paicli ran {elapsed:.1f} s"


def _run(server, workspace, home, *extra, timeout=60):
    args = ["run", "--base-url", server.base_url, "--model", "m", "--workspace", str(workspace), *extra, "read the notes"]
    started = time.monotonic()
    proc = run_paicli(args, home=home, cwd=workspace, timeout=timeout)
    return proc, time.monotonic() - started


@pytest.mark.parametrize("flag, words", [("--max-seconds", "time limit reached"), ("--run-max-seconds", "run time limit reached")])
def test_a_server_that_only_pings_is_cut_off_at_the_time_limit(workspace, paicli_home, flag, words):
    # Pings for the first call and for the summary: the summary's grace
    # (SUMMARY_GRACE_S, 10 s) bounds that one too.
    responder = FirstSlow(RawReply(pings_forever(0.2)), RawReply(pings_forever(0.2)))
    with LoopbackServer(responder) as server:
        proc, elapsed = _run(server, workspace, paicli_home, flag, "2")
    assert proc.returncode == 1, proc.stderr
    lines = ledger_lines(paicli_home)
    _assert_cut_off(lines, elapsed, 30)
    notes = [line["payload"]["text"] for line in events(lines, "agent_note")]
    assert any(note.startswith(f"[stopped] {words}") for note in notes), notes
    (finished,) = events(lines, "agent_finished")
    assert finished["payload"]["status"] == "partial"
    assert words in finished["payload"]["reason"] and "summary call failed" in finished["payload"]["reason"]
    assert [line["payload"]["kind"] for line in events(lines, "model_error")] == ["deadline", "deadline"]


@pytest.mark.parametrize("flag, words", [("--max-seconds", "time limit reached"), ("--run-max-seconds", "run time limit reached")])
def test_a_token_a_second_is_cut_off_and_the_summary_still_comes(workspace, paicli_home, flag, words):
    responder = FirstSlow(RawReply(tokens_every(1.0)), Reply(content="summary so far"))
    with LoopbackServer(responder) as server:
        proc, elapsed = _run(server, workspace, paicli_home, flag, "2")
    assert proc.returncode == 1, proc.stderr  # PARTIAL is not a final answer
    assert "summary so far" in proc.stdout
    lines = ledger_lines(paicli_home)
    _assert_cut_off(lines, elapsed, 20)
    (finished,) = events(lines, "agent_finished")
    assert (finished["payload"]["status"], finished["payload"]["text"]) == ("partial", "summary so far")
    assert words in finished["payload"]["reason"]
    assert responder.calls == 2


def test_the_default_turn_limit_stops_a_model_alternating_two_tool_calls(workspace, paicli_home):
    # The runaway guard only stops identical calls; this model alternates
    # between two reads forever and no limit is configured.
    reads = [Reply(tool_calls=[("read_file", {"path": "notes.txt"})]), Reply(tool_calls=[("list_dir", {"path": "."})])]
    calls = []

    def responder(request):
        calls.append(request)
        if not request.body.get("tools"):
            return Reply(content="summary: I kept reading")  # the tool-less summary call
        return reads[len(calls) % 2]

    with LoopbackServer(responder) as server:
        proc, _ = _run(server, workspace, paicli_home, timeout=80)
    assert proc.returncode == 1, proc.stderr
    lines = ledger_lines(paicli_home)
    (finished,) = events(lines, "agent_finished")
    assert finished["payload"]["status"] == "partial"
    assert "turn limit reached (50/50 model calls)" in finished["payload"]["reason"]
    assert len(calls) == 51  # 50 turns and the summary


@pytest.mark.parametrize("mode", ["plan", "team"])
def test_the_run_time_limit_cuts_a_planner_that_only_pings(workspace, paicli_home, mode):
    responder = FirstSlow(RawReply(pings_forever(0.2)), RawReply(pings_forever(0.2)))
    with LoopbackServer(responder) as server:
        args = ["run", "--mode", mode, "--yes", "--base-url", server.base_url, "--model", "m",
                "--run-max-seconds", "2", "plan the notes"]
        started = time.monotonic()
        proc = run_paicli(args, home=paicli_home, cwd=workspace, timeout=60)
        elapsed = time.monotonic() - started
    assert proc.returncode == 1 and "planning failed" in proc.stderr + proc.stdout
    lines = ledger_lines(paicli_home)
    _assert_cut_off(lines, elapsed, 30)
    assert [line["payload"]["kind"] for line in events(lines, "model_error")] == ["deadline"]
