"""Pure text helpers of the UI: slash commands and event lines."""

from __future__ import annotations

from paicli_tui import events as ev
from paicli_tui.present.event_lines import Line, argument_subject, describe, full_arguments
from paicli_tui.ui.conversation.slash_commands import COMMANDS, SlashCommand, command_choices, needs_argument, parse_slash


def choices(command: str) -> list[str]:
    return {"/mode": ["auto", "plan", "ask"], "/theme": ["paicli-dark", "paicli-light"]}.get(command, [])


def test_parse_slash():
    assert parse_slash("  /Mode  plan ") == SlashCommand("/mode", "plan")
    assert parse_slash("/plan add a README") == SlashCommand("/plan", "add a README")
    assert parse_slash("fix the bug") is None


def test_command_choices_for_commands_and_their_arguments():
    def texts(value: str) -> list[str]:
        return [choice.text for choice in command_choices(value, choices)]

    assert texts("/") == [f"{name} " for name in COMMANDS]
    assert texts("/pl") == ["/plan "]
    assert texts("/P") == ["/plan ", "/permissions "]
    assert texts("/help") == ["/help "]
    assert texts("/mode ") == ["/mode auto ", "/mode plan ", "/mode ask "]
    assert texts("/mode p") == ["/mode plan "]
    assert texts("/theme paicli-d") == ["/theme paicli-dark "]
    assert texts("/help x") == texts("/zzz") == texts("plain text") == texts("/plan two words") == []
    assert texts("/mode\nplan") == []
    mode, model = command_choices("/mode", choices)
    assert (mode.label, mode.hint, mode.description) == ("/mode", *COMMANDS["/mode"]) and model.label == "/model"


def test_which_commands_need_an_argument():
    assert needs_argument("/plan") and needs_argument("/team ") and needs_argument("/mode")
    assert not needs_argument("/plan fix it") and not needs_argument("/theme") and not needs_argument("/help")


def test_tool_lines_keep_commands_and_paths_whole_in_the_details():
    command = "pytest -q tests/very/long/path/" + "x" * 100
    arguments = f'{{"command": "{command}", "timeout": 30}}'
    assert full_arguments(arguments) == f"command: {command}\ntimeout: 30"
    subject = argument_subject(arguments)
    assert subject.startswith("pytest -q tests/") and subject.endswith("…") and len(subject) <= 70
    assert argument_subject('{"path": "src/a.py"}') == "src/a.py"
    assert argument_subject("not json") == "not json"


def test_describe_events():
    assert describe(ev.ModelRetry("react", "c1", 2, 1.5, "HTTP 429")).text == "↻ retry 2 in 1.5s: HTTP 429"
    line = describe(ev.ModelError("planner", "c1", "timeout", "no data for 120s"))
    assert line.kind == "error" and line.text == "[planner] ✗ model call failed (timeout): no data for 120s"
    # A sub-agent's own chatter is in its run screen pane, not the transcript.
    assert describe(ev.ModelError("task_1", "c1", "timeout", "no data for 120s")) is None
    assert describe(ev.AgentNote("worker-1", "runaway guard")) is None
    assert describe(ev.TaskStatusChanged("executor", "task_1", "RUNNING")) is None
    assert describe(ev.TaskStatusChanged("executor", "task_1", "FAILED", error="boom")).text == "task_1 failed: boom"
    assert describe(ev.AgentFinished("react", "final", "done")) is None
    # A cancel is one quiet line, never a failure, and the call's own end says nothing.
    assert describe(ev.AgentFinished("react", "cancelled", "", "cancelled by the user")) == Line("cancelled", "muted")
    assert describe(ev.ModelCallCancelled("react", "c1")) is None
    assert describe(ev.AgentFinished("react", "partial", "so far", "token limit")).kind == "warning"
    assert describe(ev.ApprovalDecided("react", "write_file", "no")).text == "✗ you declined write_file"
    assert describe(ev.ApprovalDecided("react", "write_file", "no", "not now")).text == (
        "✗ you declined write_file: not now")
    assert describe(ev.ApprovalDecided("react", "execute_command", "yes", "ASK mode")).text == (
        "✓ you approved execute_command")
    assert describe(ev.ModelDelta("react", "c1", "content", "x")) is None


def test_a_rejection_written_as_a_markdown_list_reads_as_one_line():
    feedback = "- Name the file CHANGELOG.md\n- Add the date\n\n1. keep it short"
    line = describe(ev.ReviewVerdictGiven("reviewer", "step_2", 1, False, feedback))
    assert line.text.endswith("step_2 rejected: Name the file CHANGELOG.md; Add the date; keep it short")
    retry = describe(ev.StepRetry("orchestrator", "step_2", 2, feedback))
    assert retry.text == "step_2 retry 2: Name the file CHANGELOG.md; Add the date; keep it short"
