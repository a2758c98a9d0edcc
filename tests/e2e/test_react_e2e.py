"""`paicli run` (ReAct) end to end: a real loopback OpenAI-compatible server,
the real binary as a subprocess, a temporary workspace (issue 3)."""

from __future__ import annotations

import os
import re
import signal
import time

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import events, ledger_lines, paicli_env, run_paicli, start_paicli
from tests.support.server import LoopbackServer
from tests.support.timing import scaled

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(60)]


def _tool_messages(request) -> list[str]:
    return [m["content"] for m in request.messages if m.get("role") == "tool"]


def _run(server, workspace, home, *goal, extra=(), timeout=30, env=None):
    return run_paicli(
        ["run", "--base-url", server.base_url, "--model", "m", "--workspace", str(workspace), *extra, *goal],
        home=home,
        cwd=workspace,
        timeout=timeout,
        env=env,
    )


def test_read_then_answer(workspace, paicli_home):
    script = Script({"react": [Reply(tool_calls=[("read_file", {"path": "notes.txt"})]), Reply(content="It says alpha.")]})
    with LoopbackServer(script) as server:
        proc = _run(server, workspace, paicli_home, "what is in notes.txt?")
    assert proc.returncode == 0, proc.stderr
    assert "It says alpha." in proc.stdout
    second = script.requests[1]
    (result,) = _tool_messages(second)
    assert result.startswith('<tool-result trust="untrusted-data">') and "alpha" in result
    # every request is attributed to the react agent, and carries no auth without a key
    assert all(r.agent == "react" for r in script.requests)
    assert all("authorization" not in {k.lower() for k in r.headers} for r in script.requests)
    # the system prompt is byte-identical across the run's requests (P-2.4)
    systems = {r.messages[0]["content"] for r in script.requests}
    assert len(systems) == 1 and script.requests[0].messages[0]["role"] == "system"
    # the turn context opens the first user message, never the system prompt
    assert script.requests[0].messages[1]["content"].startswith("<paicli-turn-context>")
    assert not re.search(r"\d{4}-\d{2}-\d{2}", script.requests[0].messages[0]["content"])
    lines = ledger_lines(paicli_home)
    assert events(lines, "tool_call")[0]["payload"]["tool"] == "read_file"
    assert all(line["mode"] == "react" for line in lines if line["event"] != "session_started")


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", "link/secret.txt"])
def test_path_escapes_are_refused(workspace, paicli_home, tmp_path, path):
    outside = tmp_path / "outside.txt"
    outside.write_text("secret", encoding="utf-8")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "secret.txt").write_text("secret", encoding="utf-8")
    os.symlink(tmp_path / "dir", workspace / "link")
    script = Script({"react": [Reply(tool_calls=[("read_file", {"path": path})]), Reply(content="done")]})
    with LoopbackServer(script) as server:
        proc = _run(server, workspace, paicli_home, "read it")
    assert proc.returncode == 0, proc.stderr
    (result,) = _tool_messages(script.requests[1])
    assert "secret" not in result.replace("secret.txt", "")
    assert "outside the workspace" in result or "refused" in result.lower()


def test_command_past_its_timeout_is_killed_with_children(workspace, paicli_home):
    pid_file = workspace / "child.pid"
    command = f"sleep 30 & echo $! > {pid_file.name}; wait"
    script = Script(
        {"react": [Reply(tool_calls=[("execute_command", {"command": command, "timeout": 1})]), Reply(content="done")]}
    )
    with LoopbackServer(script) as server:
        # Unconfined: the pid the command writes is read from here.
        proc = _run(server, workspace, paicli_home, "run it", extra=["--yes"],
                    env=paicli_env(paicli_home, PAICLI_SANDBOX="off"))
    assert proc.returncode == 0, proc.stderr
    (result,) = _tool_messages(script.requests[1])
    assert "timed out" in result.lower() or "timeout" in result.lower()
    child = int(pid_file.read_text().strip())
    deadline = time.monotonic() + scaled(5)
    while time.monotonic() < deadline and os.path.exists(f"/proc/{child}"):
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{child}"), "the command's child outlived the kill"


@pytest.mark.parametrize("suite_sigint", [signal.SIG_DFL, signal.SIG_IGN], ids=["foreground", "background-job"])
def test_sigint_exits_130_and_leaves_a_readable_ledger(workspace, paicli_home, suite_sigint):
    """Also when the suite itself has SIGINT ignored, as a script's ``cmd &`` has it."""
    script = Script({"react": [Reply(content="slow " * 200, chunk_chars=4, chunk_delay=0.05)]})
    with LoopbackServer(script) as server:
        previous = signal.signal(signal.SIGINT, suite_sigint)
        try:
            proc = start_paicli(
                ["run", "--base-url", server.base_url, "--model", "m",
                 "--workspace", str(workspace), "talk slowly"],
                home=paicli_home, cwd=workspace,
            )
        finally:
            signal.signal(signal.SIGINT, previous)
        deadline = time.monotonic() + scaled(15)
        while not script.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=scaled(20))
    assert proc.returncode == 130, err
    lines = ledger_lines(paicli_home)
    assert lines and lines[0]["event"] == "session_started"
    assert [line["seq"] for line in lines] == list(range(1, len(lines) + 1))


def test_runaway_guard_notes_on_third_and_stops_on_fifth(workspace, paicli_home):
    same = Reply(tool_calls=[("list_dir", {"path": "."})])
    script = Script({"react": [same] * 5 + [Reply(content="Summary: I kept listing.")]})
    with LoopbackServer(script) as server:
        proc = _run(server, workspace, paicli_home, "loop")
    assert proc.returncode == 1  # a PARTIAL result is not a final answer
    assert len(script.requests) == 6
    def notes(request):
        return [m["content"] for m in request.messages if m["role"] == "user" and "[runaway guard]" in m["content"]]
    assert notes(script.requests[2]) == []
    assert len(notes(script.requests[3])) == 1  # added after the third identical call
    assert script.requests[5].tools is None  # the summary call offers no tools
    finished = events(ledger_lines(paicli_home), "agent_finished")
    assert finished[-1]["payload"]["status"] == "partial"


def test_invalid_tool_arguments_get_an_error_result(workspace, paicli_home):
    script = Script({"react": [Reply(tool_calls=[("read_file", {"path": 42})]), Reply(content="ok")]})
    with LoopbackServer(script) as server:
        proc = _run(server, workspace, paicli_home, "read")
    assert proc.returncode == 0, proc.stderr
    (result,) = _tool_messages(script.requests[1])
    assert "path" in result and ("invalid" in result.lower() or "error" in result.lower())


def test_web_fetch_of_a_url_found_only_in_a_file_is_refused(workspace, paicli_home):
    (workspace / "links.md").write_text("see http://127.0.0.1:9/secret", encoding="utf-8")
    script = Script(
        {
            "react": [
                Reply(tool_calls=[("read_file", {"path": "links.md"})]),
                Reply(tool_calls=[("web_fetch", {"url": "http://127.0.0.1:9/secret"})]),
                Reply(content="could not fetch"),
            ]
        }
    )
    with LoopbackServer(script) as server:
        proc = _run(server, workspace, paicli_home, "follow the link in links.md")
    assert proc.returncode == 0, proc.stderr
    results = _tool_messages(script.requests[2])
    assert "refused" in results[-1]


def test_no_goal_is_a_usage_error(workspace, paicli_home):
    proc = run_paicli(["run"], home=paicli_home, cwd=workspace)
    assert proc.returncode == 2
    assert "GOAL" in proc.stderr


def test_bad_config_names_file_key_and_problem(workspace, paicli_home):
    (paicli_home / "config.toml").write_text("workers = -3\n", encoding="utf-8")
    proc = run_paicli(["run", "hi"], home=paicli_home, cwd=workspace)
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert "config.toml" in line and "workers" in line and "\n" not in line


def test_dead_server_is_a_clear_failure(workspace, paicli_home):
    proc = _run(
        type("S", (), {"base_url": "http://127.0.0.1:9/v1"})(), workspace, paicli_home, "hi",
        env=paicli_env(paicli_home, PAICLI_MAX_RETRIES="0"),
    )
    assert proc.returncode == 1
    assert "127.0.0.1:9" in proc.stderr


def test_api_key_is_sent_but_never_recorded_or_printed(workspace, paicli_home):
    key = "sk-FAKE-e2e-7f3a9c1b2d4e"
    script = Script({"react": [Reply(content=f"echoing {key}"), Reply(status=401, body='{"error": {"message": "bad key ' + key + '"}}')]})
    env = paicli_env(paicli_home, MY_TEST_KEY=key)
    with LoopbackServer(script) as server:
        ok = _run(server, workspace, paicli_home, "hi", extra=["--api-key-env", "MY_TEST_KEY"], env=env)
        rejected = _run(server, workspace, paicli_home, "again", extra=["--api-key-env", "MY_TEST_KEY"], env=env)
    assert ok.returncode == 0, ok.stderr
    assert script.requests[0].headers.get("authorization") == f"Bearer {key}" or script.requests[0].headers.get("Authorization") == f"Bearer {key}"
    assert rejected.returncode == 1
    assert "401" in rejected.stderr and key not in rejected.stderr
    for ledger in (paicli_home / "history" / "raw").glob("*.jsonl"):
        assert key not in ledger.read_text(encoding="utf-8")
