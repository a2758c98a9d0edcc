"""Issue 12, class 9, through the real `paicli run`: auth errors keep the
server's reason and name the right key variable, a bad base URL is called
that (exit 2, one line), and an empty model reply is not an answer."""

from __future__ import annotations

import json

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import events, ledger_lines, paicli_env, run_paicli
from tests.support.recorder import lines_of, record, task_plan
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(60)]

REASON = "token expired for organisation acme"


def _run(base_url, workspace, home, *extra, env=None):
    args = ["run", "--base-url", base_url, "--model", "m", "--workspace", str(workspace), *extra, "hello"]
    return run_paicli(args, home=home, cwd=workspace, env=env)


def _unauthorised():
    return Script({"react": [Reply(status=401, body=json.dumps({"error": {"message": REASON}}))]})


def test_a_loopback_401_without_a_key_keeps_the_reason_and_suggests_no_openai_key(workspace, paicli_home):
    with LoopbackServer(_unauthorised()) as server:
        proc = _run(server.base_url, workspace, paicli_home)
    assert proc.returncode == 1
    assert REASON in proc.stderr
    assert "set an API key with --api-key-env VAR" in proc.stderr
    assert "OPENAI_API_KEY" not in proc.stderr + proc.stdout


def test_a_401_names_the_key_variable_the_user_configured(workspace, paicli_home):
    with LoopbackServer(_unauthorised()) as server:
        proc = _run(server.base_url, workspace, paicli_home, "--api-key-env", "MY_LOCAL_KEY")
    assert proc.returncode == 1
    assert REASON in proc.stderr and "; set MY_LOCAL_KEY" in proc.stderr


def test_a_rejected_key_keeps_the_reason_and_not_the_key(workspace, paicli_home):
    key = "sk-loopback-test-key-123456"
    script = Script({"react": [Reply(status=403, body=json.dumps({"error": {"message": f"key {key} revoked"}}))]})
    with LoopbackServer(script) as server:
        env = paicli_env(paicli_home, MY_LOCAL_KEY=key)
        proc = _run(server.base_url, workspace, paicli_home, "--api-key-env", "MY_LOCAL_KEY", env=env)
    assert proc.returncode == 1
    assert "refused the request (403): key [REDACTED] revoked" in proc.stderr
    assert key not in proc.stderr + proc.stdout


@pytest.mark.parametrize("base_url", ["not a url", "http//x", "localhost:8080", "http:///v1"])
def test_a_garbage_base_url_is_reported_as_such_not_as_a_missing_key(workspace, paicli_home, base_url):
    proc = _run(base_url, workspace, paicli_home)
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "base URL" in line and "is not a URL" in line
    assert "API_KEY" not in line


@pytest.mark.parametrize("base_url", ["ftp://x/v1", "file:///etc/passwd"])
def test_a_non_http_base_url_exits_2(workspace, paicli_home, base_url):
    proc = _run(base_url, workspace, paicli_home)
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "base URL" in line and "use http:// or https://" in line


def test_an_empty_model_reply_fails_the_run(workspace, paicli_home):
    with LoopbackServer(Script({"react": [Reply(content="")]})) as server:
        proc = _run(server.base_url, workspace, paicli_home)
    assert proc.returncode == 1
    assert "the model returned an empty reply" in proc.stderr
    (finished,) = events(ledger_lines(paicli_home), "agent_finished")
    assert (finished["payload"]["status"], finished["payload"]["reason"]) == ("failed", "the model returned an empty reply")


def test_a_plan_task_with_an_empty_answer_is_a_failed_task(tmp_path):
    script = Script({"planner": [task_plan(("one", []))], "task": [Reply(content="   ")]})
    path = record(tmp_path, "plan", "one thing", script)
    lines = lines_of(path)
    failed = [line["payload"] for line in lines if line["event"] == "status" and line["payload"]["status"] == "FAILED"]
    assert failed and all(payload["task_id"] == failed[0]["task_id"] for payload in failed), failed
    (finished,) = [line for line in lines if line["event"] == "agent_finished" and line["actor"] == failed[0]["task_id"]]
    assert finished["payload"]["reason"] == "the model returned an empty reply"
