"""Approval policy per mode (P-6.5) through the real registry: what is
asked, what runs, what the model reads back, and which events are published."""

from __future__ import annotations

import io
import json
import os
import threading
from pathlib import Path

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.events import ApprovalDecided, ApprovalRequested, EventBus, GrantAdded
from paicli_tui.llm.types import ToolCall
from paicli_tui.policy.approval import (
    ApprovalAnswer, ApprovalRequest, AutoApprover, Decision, DenyApprover, TerminalApprover, headless_approver,
)
from paicli_tui.tools.base import ToolContext
from paicli_tui.policy.grants import command_grant
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.policy.risk import RiskVerdict
from paicli_tui.tools.trusted_urls import TrustedUrls


class RecordingApprover:
    """Answers from a script and remembers every request."""

    def __init__(self, *answers: Decision) -> None:
        self.answers = list(answers)
        self.requests: list[ApprovalRequest] = []

    def request(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return self.answers.pop(0)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("x = 1\n")
    return tmp_path


def run(registry, approver, mode, tool, bus=None, **args):
    ctx = ToolContext("react", threading.Event(), TrustedUrls(), approver, approval_mode=mode, bus=bus)
    return registry.execute(ToolCall("a", tool, json.dumps(args)), ctx)


@pytest.mark.parametrize("mode", ["auto", "plan"])
def test_auto_and_plan_run_reads_writes_and_safe_commands_without_asking(workspace, mode):
    registry = ToolRegistry(workspace, Settings())
    approver = RecordingApprover()
    assert run(registry, approver, mode, "write_file", path="new.txt", content="hi\n").ok
    assert run(registry, approver, mode, "edit_file", path="app.py", old_string="1", new_string="2").ok
    assert run(registry, approver, mode, "execute_command", command="cat new.txt").ok
    assert approver.requests == []


def test_auto_asks_about_a_risky_command_and_reports_the_denial(workspace):
    (workspace / "src").mkdir()
    registry = ToolRegistry(workspace, Settings())
    approver = RecordingApprover(Decision.NO)
    bus = EventBus("s1")
    events = []
    bus.subscribe(events.append)
    result = run(registry, approver, "auto", "execute_command", bus=bus, command="rm -rf src")
    assert not result.ok
    assert result.content == "[AUTO] denied: recursive delete of src (not a build or cache directory)"
    assert (workspace / "src").is_dir()
    [request] = approver.requests
    assert request.preview == "rm -rf src" and request.actor == "react" and request.tool == "execute_command"
    assert [type(e) for e in events] == [ApprovalRequested, ApprovalDecided]
    assert json.loads(events[0].arguments) == {"command": "rm -rf src"}
    assert events[1].decision == "no"


def test_auto_runs_a_risky_command_once_approved(workspace):
    (workspace / "src").mkdir()
    registry = ToolRegistry(workspace, Settings())
    result = run(registry, RecordingApprover(Decision.YES), "auto", "execute_command", command="rm -rf src")
    assert result.ok and not (workspace / "src").exists()


def test_deny_approver_explains_there_was_no_terminal(workspace):
    registry = ToolRegistry(workspace, Settings())
    auto = run(registry, DenyApprover(), "auto", "execute_command", command="sudo true")
    assert auto.content == "[AUTO] denied: runs with elevated privileges (sudo) (denied (no terminal to ask))"
    ask = run(registry, DenyApprover(), "ask", "write_file", path="x.txt", content="x")
    assert not ask.ok and ask.content == "denied (no terminal to ask)"
    assert not (workspace / "x.txt").exists()


def test_ask_mode_asks_for_writes_edits_and_commands_with_previews(workspace):
    registry = ToolRegistry(workspace, Settings())
    approver = RecordingApprover(Decision.NO, Decision.YES, Decision.NO)
    assert run(registry, approver, "ask", "read_file", path="app.py").ok
    denied = run(registry, approver, "ask", "write_file", path="app.py", content="x = 9\n")
    assert not denied.ok and denied.content == "denied by the user"
    assert (workspace / "app.py").read_text() == "x = 1\n"
    assert run(registry, approver, "ask", "edit_file", path="app.py", old_string="1", new_string="3").ok
    assert run(registry, approver, "ask", "execute_command", command="echo hi").content == "denied by the user"
    write, edit, command = approver.requests
    assert "-x = 1\n+x = 9\n" in write.preview and write.preview.startswith("--- a/app.py\n+++ b/app.py\n")
    assert "-x = 1\n+x = 3\n" in edit.preview
    assert command.preview == "echo hi" and command.reason == "ASK mode: every command waits for your yes"
    assert command.workdir == str(workspace.resolve())


def test_ask_mode_reason_names_the_risk_and_offers_no_grant(workspace):
    approver = RecordingApprover(Decision.NO)
    result = run(ToolRegistry(workspace, Settings()), approver, "ask", "execute_command", command="git push -f")
    [request] = approver.requests
    reason = "git push --force/--delete rewrites remote history; contacts the network (git push)"
    assert request.reason == f"risky: {reason}" and request.risky and request.grants == ()
    assert result.content == f"denied: {reason}"


def test_always_grants_the_offered_file_only_for_this_session(workspace):
    registry = ToolRegistry(workspace, Settings())
    approver = RecordingApprover(Decision.ALWAYS, Decision.NO)
    bus = EventBus("s1")
    events = []
    bus.subscribe(events.append)
    assert run(registry, approver, "ask", "write_file", bus=bus, path="a.txt", content="a").ok
    assert [g.describe() for g in approver.requests[0].grants] == [
        "writes and edits to a.txt", "writes and edits to any file under the whole workspace"]
    granted = [e for e in events if isinstance(e, GrantAdded)]
    assert [(e.rule, e.description) for e in granted] == [("path: a.txt", "writes and edits to a.txt")]
    # the same path, by another file tool: covered
    assert run(registry, approver, "ask", "edit_file", bus=bus, path="a.txt", old_string="a", new_string="c").ok
    assert events[-1].decision == "auto-approved" and "a.txt" in events[-1].reason
    # another path: asked again
    assert run(registry, approver, "ask", "write_file", path="b.txt", content="b").content == "denied by the user"
    assert len(approver.requests) == 2 and not (workspace / "b.txt").exists()
    assert [g.rule for g in registry.grants.session_grants] == ["path: a.txt"]
    assert ToolRegistry(workspace, Settings()).grants.session_grants == ()


def test_a_call_that_cannot_succeed_is_refused_before_asking(workspace):
    approver = RecordingApprover()
    registry = ToolRegistry(workspace, Settings())
    result = run(registry, approver, "ask", "edit_file", path="app.py", old_string="absent", new_string="x")
    assert "occurs 0 times" in result.content
    assert run(registry, approver, "ask", "write_file", path="../escape.txt", content="x").content.startswith("refused")
    assert approver.requests == []


def test_model_risk_check_hook(workspace):
    seen = []

    def checker(command: str):
        seen.append(command)
        return RiskVerdict(True, "model says: deploys to production") if "deploy" in command else None

    registry = ToolRegistry(workspace, Settings(), risk_checker=checker)
    approver = RecordingApprover(Decision.NO)
    assert run(registry, approver, "auto", "execute_command", command="echo fine").ok
    denied = run(registry, approver, "auto", "execute_command", command="echo deploy")
    assert denied.content == "[AUTO] denied: model says: deploys to production"
    run(registry, approver, "auto", "execute_command", command="sudo true")
    assert seen == ["echo fine", "echo deploy"]  # rules already flagged sudo: no model call


def test_failing_risk_check_and_failing_approver_deny(workspace):
    def broken(command: str):
        raise TimeoutError("model slow")

    class BrokenApprover:
        def request(self, request):
            raise RuntimeError("dialog closed")

    registry = ToolRegistry(workspace, Settings(), risk_checker=broken)
    result = run(registry, BrokenApprover(), "auto", "execute_command", command="touch made")
    assert result.content == "[AUTO] denied: risk check unavailable (TimeoutError)"
    assert not (workspace / "made").exists()


def test_auto_approver_approves():
    assert AutoApprover().request(ApprovalRequest("a", "t", {}, "r")) is Decision.YES


def test_terminal_approver_reads_answers_from_the_terminal(tmp_path):
    leader, follower = os.openpty()
    try:
        out = io.StringIO()
        approver = TerminalApprover(tty_path=os.ttyname(follower), out=out)
        os.write(leader, b"maybe\na\n")
        grant = command_grant("make deploy")
        request = ApprovalRequest("worker-1", "execute_command", {"command": "make deploy"}, "risky", "make deploy",
                                  grants=(grant,), task="step_2: ship it")
        assert approver.request(request) == ApprovalAnswer(Decision.ALWAYS, grant=grant)
        shown = out.getvalue()
        assert "[worker-1 (step_2: ship it)] execute_command needs approval: risky" in shown and "make deploy" in shown
        assert shown.count("Allow? [y]es / [a]lways: commands that start with `make deploy`, not with -C, "
                           "--directory, -f, --file, --makefile, … / [n]o") == 2
        os.write(leader, b"n\n")
        assert approver.request(request) is Decision.NO
    finally:
        os.close(leader)
        os.close(follower)


def test_headless_approver_choice(tmp_path):
    assert isinstance(headless_approver(yes=True), AutoApprover)
    assert isinstance(headless_approver(yes=False, tty_path=str(tmp_path / "no-tty")), DenyApprover)
    leader, follower = os.openpty()
    try:
        assert isinstance(headless_approver(yes=False, tty_path=os.ttyname(follower)), TerminalApprover)
    finally:
        os.close(leader)
        os.close(follower)


@pytest.mark.parametrize(("typed", "expected"), [
    (b"r\nuse make instead\n", ApprovalAnswer(Decision.NO, "use make instead")),
    (b"s\n", ApprovalAnswer(Decision.NO, "the person skipped this call; go on without it")),
    (b"e\nmake test\n", ApprovalAnswer(Decision.EDIT, edited="make test")),
    (b"a\ny\n", Decision.YES),  # no grant offered (a risky call): "a" is not a choice
])
def test_terminal_approver_reasons_skips_and_edits(typed, expected):
    leader, follower = os.openpty()
    try:
        out = io.StringIO()
        approver = TerminalApprover(tty_path=os.ttyname(follower), out=out)
        os.write(leader, typed)
        request = ApprovalRequest("react", "execute_command", {"command": "make"}, "risky: x", "make", risky=True)
        assert approver.request(request) == expected
        assert "[a]lways" not in out.getvalue() and "[e]dit first" in out.getvalue()
    finally:
        os.close(leader)
        os.close(follower)


def test_terminal_approver_edits_a_file_change_up_to_a_lone_dot(workspace):
    leader, follower = os.openpty()
    try:
        approver = TerminalApprover(tty_path=os.ttyname(follower), out=io.StringIO())
        os.write(leader, b"e\nline one\nline two\n.\n")
        registry = ToolRegistry(workspace, Settings())
        result = run(registry, approver, "ask", "write_file", path="app.py", content="x = 9\n")
        assert result.ok and (workspace / "app.py").read_text() == "line one\nline two\n"
        assert result.content.startswith("[the person edited this call before it ran")
    finally:
        os.close(leader)
        os.close(follower)
