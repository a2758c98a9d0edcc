"""Grants that never override the risk check (P-6.5, P-9.6), end to end: the
real `paicli` in a pseudo-terminal and headless, a real loopback model, real
files and commands in a temporary workspace."""

from __future__ import annotations

import json

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import events, ledger_lines, paicli_env, run_paicli
from tests.support.pty_app import PtyApp
from tests.support.server import LoopbackServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

SHIFT_TAB = b"\x1b[Z"
DIALOG = "Allow "
WAIT = 30.0


def call(tool: str, **arguments) -> Reply:
    return Reply(tool_calls=[(tool, arguments)])


@pytest.fixture
def project(workspace):
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("x = 1\n", encoding="utf-8")
    return workspace


def _turn(app: PtyApp, text: str, then: str) -> str:
    app.type(text)
    app.send(b"\r")
    return app.wait_for(lambda screen: then in screen, timeout=WAIT)


def test_a_grant_in_ask_covers_its_scope_only_and_auto_still_asks_for_rm_rf(project, paicli_home):
    script = Script({"react": [
        call("write_file", path="src/app.py", content="x = 2\n"), Reply(content="first write done"),
        call("write_file", path="src/app.py", content="x = 3\n"), Reply(content="second write done"),
        call("write_file", path="notes.md", content="outside the grant\n"), Reply(content="third turn over"),
        call("execute_command", command="python -m pytest -q --co"), Reply(content="tests collected"),
        call("execute_command", command="rm -rf src"), Reply(content="cleanup turn over"),
    ]})
    (paicli_home / "config.toml").write_text('approval_mode = "ask"\n', encoding="utf-8")
    with LoopbackServer(script) as server:
        app = PtyApp(["--base-url", server.base_url, "--model", "m"], cwd=project, env=paicli_env(paicli_home))
        try:
            app.wait_for(lambda screen: "ASK" in screen, timeout=WAIT)
            screen = _turn(app, "set x to 2", "writes and edits to src/app.py")
            app.send(b"a")  # Always: this file
            app.wait_for(lambda s: "first write done" in s, timeout=WAIT)
            _turn(app, "set x to 3", "second write done")  # inside the grant: no dialog
            assert DIALOG not in app.text()
            _turn(app, "write notes", DIALOG)  # another file: asked again
            app.send(b"n")
            app.wait_for(lambda s: "third turn over" in s, timeout=WAIT)
            _turn(app, "run the tests", "commands that start with `python -m pytest`")
            app.send(b"a")
            app.wait_for(lambda s: "tests collected" in s, timeout=WAIT)
            app.send(SHIFT_TAB)  # ask → auto
            app.wait_for(lambda s: "AUTO" in s.splitlines()[-1], timeout=WAIT)
            screen = _turn(app, "clean up", DIALOG)
            assert "risky: recursive delete of src" in screen and "Always [a]" not in screen
            app.send(b"n")
            app.wait_for(lambda s: "cleanup turn over" in s, timeout=WAIT)
        finally:
            app.close()
    assert (project / "src" / "app.py").read_text() == "x = 3\n"
    assert not (project / "notes.md").exists()
    lines = ledger_lines(paicli_home)
    asked = [json.loads(e["payload"]["arguments"]) for e in events(lines, "approval_requested")]
    assert [a.get("command") or a.get("path") for a in asked] == ["src/app.py", "notes.md", "python -m pytest -q --co",
                                                                  "rm -rf src"]
    assert [e["payload"]["rule"] for e in events(lines, "grant_added")] == ["path: src/app.py",
                                                                             "command: python -m pytest"]


def test_headless_auto_without_yes_denies_rm_rf_whatever_config_allows(project, paicli_home):
    """A person's allow rule for rm does not wave a risky delete through."""
    (paicli_home / "config.toml").write_text('[permissions]\nallow = ["command: rm"]\n', encoding="utf-8")
    script = Script({"react": [call("execute_command", command="rm -rf src"), Reply(content="gave up")]})
    with LoopbackServer(script) as server:
        proc = run_paicli(["run", "--base-url", server.base_url, "--model", "m", "clean up"],
                          home=paicli_home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert (project / "src" / "app.py").exists()
    (result,) = [m["content"] for m in script.requests[-1].messages if m.get("role") == "tool"]
    assert "[AUTO] denied: recursive delete of src" in result


def test_a_deny_rule_refuses_unasked_even_with_yes(project, paicli_home):
    (paicli_home / "config.toml").write_text('[permissions]\ndeny = ["command: git push", "path: src/"]\n',
                                              encoding="utf-8")
    script = Script({"react": [
        call("execute_command", command="echo hi && git push origin main"),
        call("write_file", path="src/app.py", content="x = 9\n"),
        Reply(content="stopped"),
    ]})
    with LoopbackServer(script) as server:
        proc = run_paicli(["run", "--yes", "--base-url", server.base_url, "--model", "m", "ship it"],
                          home=paicli_home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert (project / "src" / "app.py").read_text() == "x = 1\n"
    results = [m["content"] for m in script.requests[-1].messages if m.get("role") == "tool"]
    assert "denied by your rule `command: git push`" in results[0]
    assert "denied by your rule `path: src/`" in results[1]
