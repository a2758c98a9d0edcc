"""Hooks (the person's commands at fixed points of a session) through the
real Session, tool registry, planner, executor and team runner; real hook
scripts run as subprocesses; the model is the scripted loopback server."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import pytest

from paicli_tui import events as ev
from paicli_tui.config.settings import Settings
from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.policy.approval import Decision
from paicli_tui.session.live import Session
from tests.support.recorder import approve, done, task_plan
from tests.support.server import LoopbackServer

pytestmark = pytest.mark.timeout(60)


def hook_script(workspace: Path, name: str, body: str) -> str:
    """A Python hook script in the workspace; returns the command running it."""
    path = workspace / ".paicli" / "hooks" / f"{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("import json, os, sys\ndata = json.load(sys.stdin)\n" + body, encoding="utf-8")
    return f"{shlex.quote(sys.executable)} .paicli/hooks/{name}.py"


class CountingApprover:
    def __init__(self) -> None:
        self.asked = 0

    def request(self, request):
        self.asked += 1
        return Decision.YES


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


def start(server, workspace, hooks, **kwargs):
    settings = Settings(provider="custom", base_url=server.base_url, model="m", max_retries=0, hooks=hooks,
                        **kwargs.pop("settings", {}))
    session = Session(settings, workspace, **kwargs)
    seen: list[ev.Event] = []
    session.bus.subscribe(seen.append)
    return session, seen


def hook_runs(seen) -> list[ev.HookRan]:
    return [event for event in seen if isinstance(event, ev.HookRan)]


def user_texts(request) -> str:
    return "\n".join(str(m.get("content")) for m in request.messages if m.get("role") == "user")


def tool_texts(request) -> str:
    return "\n".join(str(m.get("content")) for m in request.messages if m.get("role") == "tool")


def test_pre_tool_use_exit_2_blocks_the_command_before_approval_and_the_model_reads_why(workspace):
    block = hook_script(workspace, "block", "sys.stderr.write('no rm here: ' + data['tool_input']['command'])\n"
                                           "sys.exit(2)\n")
    script = Script({"react": [Reply(tool_calls=[("execute_command", {"command": "touch marker"})]),
                               Reply(content="ok")]})
    approver = CountingApprover()
    with LoopbackServer(script) as server:
        session, seen = start(server, workspace, {"PreToolUse": [{"matcher": "execute_*", "command": block}]},
                              approver=approver)
        session.approval_mode = "ask"
        try:
            outcome = session.start_react("make a marker").result(timeout=30)
        finally:
            session.close()
    assert outcome.ok
    assert not (workspace / "marker").exists()
    assert approver.asked == 0
    assert "blocked by hook: no rm here: touch marker" in tool_texts(script.requests[-1])
    (ran,) = hook_runs(seen)
    assert (ran.outcome, ran.exit_code, ran.hook_event, ran.source) == ("blocked", 2, "PreToolUse", "user")


def test_a_matcher_that_does_not_match_runs_nothing(workspace):
    block = hook_script(workspace, "block", "sys.exit(2)\n")
    (workspace / "notes.txt").write_text("hello\n")
    script = Script({"react": [Reply(tool_calls=[("read_file", {"path": "notes.txt"})]), Reply(content="read")]})
    with LoopbackServer(script) as server:
        session, seen = start(server, workspace, {"PreToolUse": [{"matcher": "mcp__*", "command": block}]})
        try:
            session.start_react("read notes").result(timeout=30)
        finally:
            session.close()
    assert hook_runs(seen) == []
    assert "hello" in tool_texts(script.requests[-1])


def test_user_prompt_submit_adds_context_and_session_start_only_on_the_first_run(workspace):
    prompt = hook_script(workspace, "prompt", "print('ticket ' + data['prompt'].upper())\n")
    started = hook_script(workspace, "started", "print('started as ' + data['source'])\n")
    script = Script({"react": [Reply(content="one"), Reply(content="two")]})
    with LoopbackServer(script) as server:
        session, seen = start(server, workspace, {"UserPromptSubmit": [{"command": prompt}],
                                                  "SessionStart": [{"command": started}]})
        try:
            session.start_react("abc").result(timeout=30)
            session.start_react("def").result(timeout=30)
        finally:
            session.close()
    first, second = script.requests
    assert "<hook-context>\nstarted as startup\nticket ABC\n</hook-context>" in user_texts(first)
    assert "ticket DEF" in user_texts(second).split("ticket ABC")[-1]
    assert user_texts(second).count("started as startup") == 1  # only in the first turn, kept in history
    assert [r.hook_event for r in hook_runs(seen)] == ["SessionStart", "UserPromptSubmit", "UserPromptSubmit"]


def test_user_prompt_submit_exit_2_sends_nothing_to_the_model(workspace):
    block = hook_script(workspace, "block", "sys.stderr.write('prompts must name a ticket'); sys.exit(2)\n")
    script = Script({"react": [Reply(content="never")]})
    with LoopbackServer(script) as server:
        session, _ = start(server, workspace, {"UserPromptSubmit": [{"command": block}]})
        try:
            outcome = session.start_react("do it").result(timeout=30)
        finally:
            session.close()
    assert script.requests == []
    assert (outcome.ok, outcome.status) == (False, "blocked")
    assert "prompts must name a ticket" in outcome.text


def test_post_tool_use_exit_2_reaches_the_model_with_the_result(workspace):
    lint = hook_script(workspace, "lint", "path = data['tool_input']['path']\n"
                                         "sys.stderr.write(f'lint: {path} has a trailing space'); sys.exit(2)\n")
    script = Script({"react": [Reply(tool_calls=[("write_file", {"path": "a.py", "content": "x = 1 \n"})]),
                               Reply(content="written")]})
    with LoopbackServer(script) as server:
        session, seen = start(server, workspace, {"PostToolUse": [{"matcher": "write_file", "command": lint}]})
        try:
            session.start_react("write").result(timeout=30)
        finally:
            session.close()
    assert (workspace / "a.py").read_text() == "x = 1 \n"  # it already ran
    assert "[hook] lint: a.py has a trailing space" in tool_texts(script.requests[-1])
    assert hook_runs(seen)[0].outcome == "blocked"


FAIL_FIRST = ("count = os.path.join(os.environ['PAICLI_PROJECT_DIR'], 'attempts')\n"
              "n = int(open(count).read()) + 1 if os.path.exists(count) else 1\n"
              "open(count, 'w').write(str(n))\n"
              "if n == 1:\n    sys.stderr.write('tests fail in ' + data['task_id']); sys.exit(2)\n"
              "print('checked attempt ' + str(data['attempt']))\n")


def test_task_completed_fails_a_team_step_and_the_reason_reaches_the_retry(workspace):
    check = hook_script(workspace, "check", FAIL_FIRST)
    script = Script({"planner": [task_plan(("do the work", []))],
                     "worker": [done("first try"), done("second try")], "reviewer": [approve()]})
    with LoopbackServer(script) as server:
        session, seen = start(server, workspace, {"TaskCompleted": [{"matcher": "team", "command": check}]})
        try:
            outcome = session.start_team("work").result(timeout=30)
        finally:
            session.close()
    assert outcome.ok, outcome.text
    (retry,) = [e for e in seen if isinstance(e, ev.StepRetry)]
    assert retry.feedback == "hook: tests fail in step_1" and retry.attempt == 2
    worker_requests = [r for r in script.requests if r.agent.startswith("worker")]
    assert "tests fail in step_1" in user_texts(worker_requests[-1])
    reviews = [r for r in script.requests if r.agent.startswith("reviewer")]
    assert len(reviews) == 1 and "checked attempt 2" in user_texts(reviews[0])  # the failed try was never reviewed


def test_task_completed_fails_a_plan_task_and_the_same_agent_retries_with_the_reason(workspace):
    check = hook_script(workspace, "check", FAIL_FIRST)
    script = Script({"planner": [task_plan(("do the work", []))],
                     "task_1": [Reply(content="first try"), Reply(content="second try")]})
    with LoopbackServer(script) as server:
        session, seen = start(server, workspace, {"TaskCompleted": [{"command": check}]})
        try:
            outcome = session.start_plan("work").result(timeout=30)
        finally:
            session.close()
    assert outcome.ok, outcome.text
    task_requests = [r for r in script.requests if r.agent == "task_1"]
    assert len(task_requests) == 2
    assert "tests fail in task_1" in user_texts(task_requests[1])
    assert "first try" in str(task_requests[1].messages)  # the same agent: its history kept
    assert [(e.step_id, e.attempt) for e in seen if isinstance(e, ev.StepRetry)] == [("task_1", 2)]
    assert "second try" in outcome.text


def test_a_plan_task_that_keeps_failing_its_check_fails_and_the_replanner_reads_why(workspace):
    check = hook_script(workspace, "check", "sys.stderr.write('coverage below 80%'); sys.exit(2)\n")
    script = Script({"planner": [task_plan(("do the work", [])), task_plan(("give up politely", []))],
                     "task": [Reply(content="a"), Reply(content="b"), Reply(content="c")],
                     "task_2": [Reply(content="a"), Reply(content="b"), Reply(content="c")]})
    with LoopbackServer(script) as server:
        session, seen = start(server, workspace, {"TaskCompleted": [{"command": check}]})
        try:
            session.start_plan("work").result(timeout=30)
        finally:
            session.close()
    failed = [e for e in seen if isinstance(e, ev.TaskStatusChanged) and e.status == "FAILED"]
    assert failed and failed[0].task_id == "task_1" and "hook: coverage below 80%" in failed[0].error
    replan = [r for r in script.requests if r.agent == "planner"][1]
    assert "hook: coverage below 80%" in user_texts(replan)


def test_plan_ready_exit_2_sends_the_plan_back_to_the_planner_with_the_reason(workspace):
    check = hook_script(workspace, "check", "if data['revision'] == 0:\n"
                                            "    sys.stderr.write('every plan needs a test task'); sys.exit(2)\n")
    script = Script({"planner": [task_plan(("edit", [])), task_plan(("edit", []), ("test", ["t1"]))],
                     "task": [Reply(content="done"), Reply(content="done")]})
    with LoopbackServer(script) as server:
        session, seen = start(server, workspace, {"PlanReady": [{"command": check}]})
        try:
            outcome = session.start_plan("work").result(timeout=30)
        finally:
            session.close()
    assert outcome.ok, outcome.text
    revise = [r for r in script.requests if r.agent == "planner"][1]
    assert "A check rejected the plan: every plan needs a test task" in user_texts(revise)
    assert [r.outcome for r in hook_runs(seen)] == ["blocked", "ok"]


def test_a_hook_past_its_timeout_is_killed_and_the_turn_goes_on(workspace):
    script = Script({"react": [Reply(tool_calls=[("execute_command", {"command": "echo ran > out"})]),
                               Reply(content="ok")]})
    with LoopbackServer(script) as server:
        session, seen = start(server, workspace, {"PreToolUse": [
            {"command": "echo $$ > hook.pid; sleep 30", "timeout": 1}]})
        try:
            began = time.monotonic()
            outcome = session.start_react("go").result(timeout=30)
            took = time.monotonic() - began
        finally:
            session.close()
    assert outcome.ok and (workspace / "out").read_text() == "ran\n"
    (ran,) = hook_runs(seen)
    assert ran.outcome == "timeout" and 1 <= ran.duration_s < 4 and took < 10
    pid = int((workspace / "hook.pid").read_text())
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split(")")[1][:3]


@pytest.mark.parametrize("command, why", [("exit 1", "exit code 1"), ("kill -SEGV $$", "killed by signal 11")])
def test_a_crashing_hook_is_a_warning_and_the_turn_goes_on(workspace, command, why):
    script = Script({"react": [Reply(tool_calls=[("execute_command", {"command": "echo ran > out"})]),
                               Reply(content="ok")]})
    with LoopbackServer(script) as server:
        session, seen = start(server, workspace, {"PreToolUse": [{"command": command}]})
        try:
            outcome = session.start_react("go").result(timeout=30)
        finally:
            session.close()
    assert outcome.ok and (workspace / "out").exists()
    (ran,) = hook_runs(seen)
    assert ran.outcome == "warning" and why in ran.reason


def test_stop_exit_2_continues_the_turn_once(workspace):
    stop = hook_script(workspace, "stop", "if not data['stop_hook_active']:\n"
                                          "    sys.stderr.write('also update CHANGELOG'); sys.exit(2)\n")
    script = Script({"react": [Reply(content="done"), Reply(content="changelog updated")]})
    with LoopbackServer(script) as server:
        session, seen = start(server, workspace, {"Stop": [{"command": stop}]})
        try:
            outcome = session.start_react("go").result(timeout=30)
        finally:
            session.close()
    assert len(script.requests) == 2 and "also update CHANGELOG" in user_texts(script.requests[1])
    assert outcome.text == "changelog updated"
    assert [r.outcome for r in hook_runs(seen)] == ["blocked", "ok"]
    recorded = [e for e in seen if isinstance(e, ev.RunOutcomeRecorded)]
    assert recorded[-1].text == "changelog updated"


def write_workspace_hooks(workspace: Path, command: str) -> None:
    config = workspace / ".paicli" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"[[hooks.PreToolUse]]\ncommand = {json.dumps(command)}\n", encoding="utf-8")


def test_workspace_hooks_run_only_after_trust_and_a_changed_script_asks_again(workspace):
    mark = hook_script(workspace, "mark", "open('hook-ran', 'a').write('x')\n")
    write_workspace_hooks(workspace, mark)

    def one_turn(trust: bool = False):
        script = Script({"react": [Reply(tool_calls=[("list_dir", {"path": "."})]), Reply(content="ok")]})
        with LoopbackServer(script) as server:
            session, seen = start(server, workspace, {})
            try:
                if trust:
                    session.hooks.trust(remember=True)
                session.start_react("go").result(timeout=30)
            finally:
                session.close()
        return session, seen

    session, seen = one_turn()
    assert hook_runs(seen) == [] and not (workspace / "hook-ran").exists()
    assert any("not run until you trust them" in w and ".paicli/hooks/mark.py" in w for w in session.warnings)

    session, seen = one_turn(trust=True)
    assert [r.source for r in hook_runs(seen)] == ["workspace"]
    assert any(isinstance(e, ev.HooksTrusted) and e.remembered for e in seen)

    session, seen = one_turn()  # remembered
    assert len(hook_runs(seen)) == 1 and session.warnings == []

    hook_script(workspace, "mark", "open('hook-ran', 'a').write('changed')\n")
    session, seen = one_turn()
    assert hook_runs(seen) == [] and any("not run until you trust them" in w for w in session.warnings)
    assert (workspace / "hook-ran").read_text() == "xx"


def test_user_hooks_run_without_trust_and_an_unknown_workspace_event_is_one_warning(workspace):
    config = workspace / ".paicli" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[[hooks.Bogus]]\ncommand = "true"\n', encoding="utf-8")
    script = Script({"react": [Reply(content="ok")]})
    with LoopbackServer(script) as server:
        session, seen = start(server, workspace, {"UserPromptSubmit": [{"command": "echo mine"}]})
        try:
            session.start_react("go").result(timeout=30)
        finally:
            session.close()
    assert [(r.source, r.outcome) for r in hook_runs(seen)] == [("user", "ok")]
    assert session.warnings == [f"{config}: hooks.Bogus: unknown hook event; its hooks are ignored"]


def test_an_unknown_event_in_config_toml_is_a_one_line_config_error(tmp_path):
    from paicli_tui.config.settings import ConfigError
    from paicli_tui.config.loading import load_settings

    path = tmp_path / "config.toml"
    path.write_text('[[hooks.PreToolCall]]\ncommand = "true"\n')
    with pytest.raises(ConfigError) as info:
        load_settings(path=path)
    assert str(info.value) == f"{path}: hooks.PreToolCall: unknown setting"
