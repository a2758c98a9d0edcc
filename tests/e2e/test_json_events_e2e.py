"""`paicli run --json` (docs/events.md): the ledger's events as JSON lines,
each system prompt written once, a report last."""

from __future__ import annotations

import hashlib
import json

import pytest

from paicli_tui.llm.offline.scripted import Script
from tests.support.cli import ledger_lines, run_paicli
from tests.support.recorder import StepResponder, team_plan
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(90)]


def test_json_lines_are_the_ledger_events_with_each_system_prompt_once(workspace, paicli_home):
    script = Script({"planner": [team_plan(("A", []), ("B", []), ("C needs A and B", ["s1", "s2"]))]},
                    default=StepResponder("step_1"))
    with LoopbackServer(script) as server:
        live = run_paicli(["run", "--yes", "--json", "--base-url", server.base_url, "--model", "m", "--workspace",
                           str(workspace), "--mode", "team", "three steps"], home=paicli_home, cwd=workspace, timeout=60)
    assert live.returncode == 0, live.stderr
    stream = [json.loads(line) for line in live.stdout.splitlines()]
    assert stream[-1]["event"] == "report" and all(d["result"] for d in stream[-1]["tasks"])
    events, ledger = stream[:-1], ledger_lines(paicli_home)
    assert ledger[0]["event"] == "session_started"  # written before the run: the stream starts at the run
    ledger = ledger[1:]
    assert [(d["event"], d["actor"]) for d in events] == [(line["event"], line["actor"]) for line in ledger]

    seen: set[str] = set()
    referenced = 0
    for line, record in zip(events, ledger):
        payload = {k: v for k, v in line.items() if k not in ("event", "actor")}
        if line["event"] != "model_request":
            assert payload == record["payload"]
            continue
        digest = line["system_sha256"]
        for sent, kept in zip(line["new_messages"], record["payload"]["new_messages"]):
            if sent.get("system_sha256"):
                referenced += 1
                assert digest in seen and sent == {"role": "system", "system_sha256": digest}
                assert hashlib.sha256(kept["content"].encode()).hexdigest() == digest
            else:
                assert sent == kept
                if sent["role"] == "system":
                    assert digest not in seen, "a system prompt written out twice"
                    seen.add(digest)
    assert referenced >= 2  # three workers' steps and three reviewers share two prompts
