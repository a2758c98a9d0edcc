"""The session's secrets are redacted from every event before any subscriber
sees it — ledger, printers, the UI — and from tool results (issue 12,
classes 1c and 1d). Engine-level: a real EventBus, real printers, a real
ledger file and real files read by the real read_file tool."""

from __future__ import annotations

import io
import json
import threading

import pytest

from paicli_tui import events as ev
from paicli_tui.config.settings import Settings
from paicli_tui.present.headless import JsonPrinter, TextPrinter
from paicli_tui.records.ledger import Ledger, ledger_path
from paicli_tui.llm.types import ToolCall
from paicli_tui.policy.redaction import REDACTED, Redactor, redact_secret_shapes
from paicli_tui.session.live import RunOutcome
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.tools.trusted_urls import TrustedUrls

SHORT = "abcde"
LONG = "sk-live-0123456789abcdefghij"


def _bus(*secrets: str) -> tuple[ev.EventBus, list[ev.Event]]:
    bus = ev.EventBus("s", redactor=Redactor(secrets))
    seen: list[ev.Event] = []
    bus.subscribe(seen.append)
    return bus, seen


def _delta(text: str, call_id: str = "c1") -> ev.ModelDelta:
    return ev.ModelDelta("react", call_id, "content", text)


def test_a_subscriber_gets_events_with_secrets_replaced_in_every_field():
    bus, seen = _bus(SHORT, LONG)
    bus.publish(ev.ToolCallStarted("react", "t1", "execute_command", json.dumps({"command": f"echo {SHORT}"})))
    bus.publish(ev.ModelRequest("react", "c1", "m", ("read_file",), 2, "sha",
                                ({"role": "user", "content": f"use {LONG} please"},)))
    bus.publish(ev.RunFinished("engine", "COMPLETED", f"done with {LONG}", {"note": SHORT}))
    started, request, finished = seen
    assert json.loads(started.arguments) == {"command": f"echo {REDACTED}"}
    assert request.new_messages[0]["content"] == f"use {REDACTED} please"
    assert finished.summary == f"done with {REDACTED}" and finished.counts == {"note": REDACTED}
    assert SHORT not in repr(seen) and LONG not in repr(seen)


def test_an_event_without_a_secret_is_passed_on_as_the_same_object():
    bus, seen = _bus(LONG)
    event = ev.AgentNote("react", "nothing to hide")
    delta = _delta("plain text")
    bus.publish(event)
    bus.publish(delta)
    assert seen[0] is event and seen[1] is delta


def test_a_key_split_across_streamed_deltas_is_still_redacted():
    bus, seen = _bus(SHORT)
    for piece in ("the key is ab", "c", "de, ok", " and abc"):
        bus.publish(_delta(piece))
    bus.publish(ev.ModelResponse("react", "c1", "the key is abcde, ok and abc", "", (), "stop", 1, 1, 0, 0.1))
    streamed = "".join(e.text for e in seen if isinstance(e, ev.ModelDelta))
    # the held-back tail ("abc", a prefix only) is released when the stream ends
    assert streamed == f"the key is {REDACTED}, ok and abc"
    assert isinstance(seen[-1], ev.ModelResponse) and seen[-1].content == f"the key is {REDACTED}, ok and abc"


def test_streams_of_different_calls_are_held_apart():
    bus, seen = _bus(SHORT)
    bus.publish(_delta("x ab", "c1"))
    bus.publish(_delta("cd", "c2"))
    bus.publish(_delta("cde y", "c1"))
    text = {c: "".join(e.text for e in seen if isinstance(e, ev.ModelDelta) and e.call_id == c) for c in ("c1", "c2")}
    assert text == {"c1": f"x {REDACTED} y", "c2": "cd"}


def test_short_keys_are_redacted_in_the_ledger(paicli_home):
    bus = ev.EventBus("short")
    ledger = Ledger(bus, redact=(SHORT,))
    bus.publish(ev.ModelError("react", "c1", "auth", f"server echoed {SHORT}"))
    ledger.close()
    text = ledger_path("short").read_text()
    assert SHORT not in text and REDACTED in text


def test_printers_on_a_redacting_bus_print_no_secret():
    bus, _ = _bus(SHORT, LONG)
    out, err, jout = io.StringIO(), io.StringIO(), io.StringIO()
    bus.subscribe(TextPrinter(out, err))
    bus.subscribe(JsonPrinter(jout))
    for piece in ("key ", "ab", "cde and ", LONG[:5], LONG[5:]):
        bus.publish(_delta(piece))
    bus.publish(ev.ModelResponse("react", "c1", f"key {SHORT} and {LONG}", "", (), "stop", 1, 1, 0, 0.1))
    bus.publish(ev.ToolCallFinished("react", "t1", "execute_command", True, f"printed {SHORT}", LONG))
    bus.publish(ev.ModelError("react", "c2", "auth", f"bad key {LONG}"))
    for stream in (out, err, jout):
        assert SHORT not in stream.getvalue() and LONG not in stream.getvalue()
    assert f"key {REDACTED} and {REDACTED}" in out.getvalue()


def test_the_run_outcome_is_scrubbed():
    outcome = Redactor((SHORT,)).scrub(RunOutcome("react", True, "final", f"the key is {SHORT}"))
    assert outcome == RunOutcome("react", True, "final", f"the key is {REDACTED}")


def test_keys_shorter_than_four_characters_are_placeholders_not_secrets(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    assert Redactor.for_session(Settings()).secrets == ()
    monkeypatch.setenv("OPENAI_API_KEY", "abcd")
    assert "abcd" in Redactor.for_session(Settings()).secrets


# -- secrets in tool results (optional) ---------------------------------------------

PRIVATE_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACDx\n-----END OPENSSH PRIVATE KEY-----"
DOTENV = (
    "DEBUG=true\n"
    "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz012345\n"
    "export DB_PASSWORD='hunter2hunter2'\n"
    "DATABASE_URL=postgres://app:pgsecret99@db:5432/app\n"
    "GITHUB=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n"
    "AWS_ACCESS=AKIAIOSFODNN7EXAMPLE\n"
    "READ_FROM_CODE=os.environ['X']\n"
    f"{PRIVATE_KEY}\n"
    "PORT=8080\n"
)
LEAKS = ("sk-proj-abcdefghijklmnopqrstuvwxyz012345", "hunter2hunter2", "pgsecret99",
         "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "AKIAIOSFODNN7EXAMPLE", "b3BlbnNzaC1rZXktdjEAAAAA")


@pytest.fixture
def dotenv_workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".env").write_text(DOTENV, encoding="utf-8")
    return ws


def _read_env(workspace, settings: Settings):
    bus = ev.EventBus("s")
    seen: list[ev.Event] = []
    bus.subscribe(seen.append)
    registry = ToolRegistry(workspace, settings)
    ctx = ToolContext("react", threading.Event(), TrustedUrls(), AutoApprover(), bus=bus)
    result = registry.execute(ToolCall("t1", "read_file", json.dumps({"path": ".env"})), ctx)
    assert result.ok, result.content
    return result, seen


def test_secrets_in_a_dotenv_file_are_redacted_when_the_setting_is_on(dotenv_workspace):
    result, seen = _read_env(dotenv_workspace, Settings(redact_tool_secrets=True))
    for leak in LEAKS:
        assert leak not in result.content, leak
    for kept in ("DEBUG=true", "PORT=8080", "OPENAI_API_KEY=[REDACTED]", "DB_PASSWORD='[REDACTED]'",
                 "postgres://app:[REDACTED]@db", "-----BEGIN OPENSSH PRIVATE KEY-----", "READ_FROM_CODE=os.environ"):
        assert kept in result.content, kept
    assert "[paicli redacted" in result.content
    (note,) = [e for e in seen if isinstance(e, ev.SecretsRedacted)]
    assert note.tool == "read_file" and note.call_id == "t1" and note.count >= 6 and "private key" in note.kinds


def test_tool_results_are_left_alone_by_default(dotenv_workspace):
    result, seen = _read_env(dotenv_workspace, Settings())
    assert all(leak in result.content for leak in LEAKS)
    assert not any(isinstance(e, ev.SecretsRedacted) for e in seen)


def test_a_truncated_private_key_is_redacted_to_its_end():
    text, kinds = redact_secret_shapes("before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAAA")
    assert text == f"before\n-----BEGIN RSA PRIVATE KEY-----\n{REDACTED}\n" and kinds == ["private key"]


def test_credential_variables_are_secrets_but_paths_to_them_are_not():
    environ = {"GITHUB_TOKEN": "ghp_value_long_enough", "FOO_TOKEN": "1", "PATH": "/bin",
               "GOOGLE_APPLICATION_CREDENTIALS": "/home/u/key.json"}
    assert Redactor.for_session(Settings(api_key_env=""), environ).secrets == ("ghp_value_long_enough",)
