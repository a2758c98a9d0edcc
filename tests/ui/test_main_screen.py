"""Pilot tests for the main screen: input, commands, streaming, errors, quit.
The prompt editor's own keys (history, menu, paste) are in test_prompt_editor.py."""

from __future__ import annotations

import threading

from paicli_tui import events as ev
from paicli_tui.ui.common.markdown_text import MarkdownText
from paicli_tui.ui.conversation.transcript_answers import ReasoningEntry
from paicli_tui.ui.conversation.transcript_entries import ToolEntry
from tests.support.timing import scaled
from tests.ui.conftest import settle, submit, text_of, transcript_text
from tests.ui.fake_session import Outcome

SIZE = (120, 36)


async def test_enter_submits_the_text_to_the_session(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"list the files", "enter")
        await settle(pilot)
        assert session.submitted == ["list the files"]
        assert "› list the files" in transcript_text(app)
        assert app.main_screen.prompt.value == ""
        assert "esc cancels" in str(app.main_screen.prompt.border_title)


async def test_blank_input_is_not_submitted(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space", "enter")
        await settle(pilot)
        assert session.submitted == []


async def test_plan_and_team_commands_go_to_the_session(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/team sum the numbers")
        await settle(pilot)
        assert session.submitted == ["/team sum the numbers"]


async def test_a_busy_session_is_reported_and_the_app_stays_usable(app, session):
    async with app.run_test(size=SIZE) as pilot:
        session.submit_error = RuntimeError("still working on the previous request (Esc cancels it)")
        await submit(pilot, "again")
        await settle(pilot)
        assert "still working on the previous request" in transcript_text(app)
        session.submit_error = None
        await submit(pilot, "now")
        await settle(pilot)
        assert session.submitted == ["now"]


async def test_escape_cancels_the_running_turn(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        await pilot.press("escape")
        await pilot.pause()
        assert session.cancelled == 1
        session.finish(Outcome("react", False, "cancelled"))
        await settle(pilot)
        await pilot.press("escape")  # nothing running: nothing to cancel
        assert session.cancelled == 1
        assert not app.main_screen.prompt.border_title


async def test_help_model_and_unknown_commands(app, session):
    from paicli_tui.ui.help.help_screen import HelpScreen

    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/help")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert "/team GOAL" in app.screen.help_text() and "Shift+Tab" in app.screen.help_text()
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.main_screen
        for line in ("/model", "/frobnicate"):
            await submit(pilot, line)
        await settle(pilot)
        text = transcript_text(app)
        assert "› /help" in text
        assert "model: demo" in text
        assert "unknown command /frobnicate" in text
        assert session.submitted == []


async def test_clear_empties_the_transcript_and_the_conversation(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "hello")
        session.finish()
        await settle(pilot)
        await submit(pilot, "/clear")
        session.finish(Outcome("command", True, "final", "conversation cleared"))
        await settle(pilot)
        text = transcript_text(app)
        assert "hello" not in text
        assert "conversation cleared" in text
        assert session.submitted == ["hello", "/clear"]


async def test_quit_command_exits(app):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/quit")
        await pilot.pause()
        assert app._exit


async def test_ctrl_c_twice_quits(app):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not app._exit
        assert "Press Ctrl+C again to quit" in app.notices
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app._exit


def _publish_stream(session, actor: str, call_id: str, pieces: list[str], kind: str = "content") -> None:
    for piece in pieces:
        session.bus.publish(ev.ModelDelta(actor, call_id, kind, piece))


async def test_deltas_from_a_background_thread_stream_into_the_transcript(app, session):
    words = [f"word{i} " for i in range(300)] + ["\n\n**done** [sic]"]
    async with app.run_test(size=SIZE) as pilot:
        worker = threading.Thread(target=_publish_stream, args=(session, "react", "c1", words))
        worker.start()
        worker.join(timeout=scaled(10))
        await settle(pilot)
        answers = [m for m in app.main_screen.transcript.query(MarkdownText) if "answer" in m.classes]
        assert len(answers) == 1
        assert answers[0].source == "".join(words)


async def test_each_frame_writes_each_stream_once(app, session, monkeypatch):
    writes: list[str] = []
    original = MarkdownText.write
    monkeypatch.setattr(MarkdownText, "write", lambda self, text: (writes.append(text), original(self, text)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        async with app._paint_lock:  # hold the frame while a burst arrives
            _publish_stream(session, "react", "c1", ["a", "b", "c"])
            _publish_stream(session, "task_2", "c2", ["x", "y"])
            _publish_stream(session, "react", "c1", ["d"])
        await settle(pilot)
        assert writes == ["abcd"]  # a sub-agent's text goes to the run screen, not here


async def test_only_the_react_agent_streams_sub_agents_get_one_line_per_fact(app, session):
    async with app.run_test(size=SIZE) as pilot:
        for actor in ("task_1", "worker-2", "reviewer-step_2"):
            _publish_stream(session, actor, "c9", ["{\"status\": ", "\"completed\"}"])
            _publish_stream(session, actor, "c9", ["hmm"], kind="reasoning")
            session.bus.publish(ev.ToolCallStarted(actor, "t9", "read_file", '{"path": "a.py"}'))
            session.bus.publish(ev.ToolCallFinished(actor, "t9", "read_file", True, "1 line", "x"))
            session.bus.publish(ev.AgentNote(actor, "runaway guard"))
            session.bus.publish(ev.AgentFinished(actor, "final", "{\"status\": \"completed\"}"))
        session.bus.publish(ev.TaskDispatched("orchestrator", "step_2", "worker-2"))
        session.bus.publish(ev.TaskStatusChanged("orchestrator", "step_2", "RUNNING"))
        session.bus.publish(ev.WorkerReportParsed("worker-2", "step_2", 1, "completed", "ok"))
        session.bus.publish(ev.ReviewStarted("reviewer-step_2", "step_2", 1))
        session.bus.publish(ev.ReviewVerdictGiven("reviewer-step_2", "step_2", 1, True, ""))
        session.bus.publish(ev.TaskStatusChanged("orchestrator", "step_2", "COMPLETED"))
        await settle(pilot)
        transcript = app.main_screen.transcript
        assert not transcript.query(MarkdownText) and not transcript.query(ToolEntry)
        lines = [str(entry.render()) for entry in transcript.children][1:]  # after the greeting
        assert lines == ["▸ step_2 → worker-2", "[reviewer-step_2] step_2 approved", "step_2 completed"]


async def test_the_planner_shows_one_spinner_line_with_a_count_until_its_reply(app, session):
    from paicli_tui.ui.conversation.transcript_entries import PlanningLine

    async with app.run_test(size=SIZE) as pilot:
        session.bus.publish(ev.ModelRequest("planner", "p1", "demo", (), 1, "sha"))
        await settle(pilot)
        line = app.main_screen.transcript.query_one(PlanningLine)
        assert "planner: planning…" in str(line.render()) and "characters" not in str(line.render())
        _publish_stream(session, "planner", "p1", ["{\"tasks\": ", "[1, 2]}"])
        await settle(pilot)
        assert str(line.render()).endswith("planner: planning… · 17 characters")
        assert not app.main_screen.transcript.query(MarkdownText)
        session.bus.publish(ev.ModelResponse("planner", "p1", "{}", "", (), "stop", 10, 5, 0, 0.1))
        session.bus.publish(ev.PlanProposed("planner", 1, "initial", "goal", {"tasks": [{"id": "task_1"}]}))
        await settle(pilot)
        assert not app.main_screen.transcript.query(PlanningLine)
        assert "[planner] plan v1 (initial): 1 tasks" in transcript_text(app)


async def test_reasoning_is_dimmed_and_folds_when_the_reply_is_complete(app, session):
    async with app.run_test(size=SIZE) as pilot:
        _publish_stream(session, "react", "c1", ["Let me ", "think."], kind="reasoning")
        await settle(pilot)
        reasoning = app.main_screen.transcript.query_one(ReasoningEntry)
        assert not reasoning.collapsed
        assert reasoning.body.source == "Let me think."
        session.bus.publish(ev.ModelResponse("react", "c1", "", "Let me think.", (), "stop", 10, 2, 0, 0.1))
        await settle(pilot)
        assert reasoning.collapsed
        assert "thought" in str(reasoning.title)


async def test_a_tool_call_is_one_line_that_expands(app, session):
    async with app.run_test(size=SIZE) as pilot:
        session.bus.publish(ev.ToolCallStarted("react", "t1", "read_file", '{"path": "src/[weird]/main.py"}'))
        await settle(pilot)
        entry = app.main_screen.transcript.query_one(ToolEntry)
        assert "read_file src/[weird]/main.py" in str(entry.title)
        session.bus.publish(ev.ToolCallFinished("react", "t1", "read_file", True, "12 lines", "print('hi')"))
        await settle(pilot)
        assert str(entry.title).endswith("— 12 lines")
        assert entry.collapsed
        await pilot.click(entry.query_one("CollapsibleTitle"))
        await pilot.pause()
        assert not entry.collapsed
        assert "print('hi')" in str(entry.details.render())


async def test_model_errors_show_and_the_app_stays_usable(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "hi")
        session.bus.publish(ev.ModelError("react", "c1", "auth", "the server rejected the API key (HTTP 401)"))
        session.bus.publish(ev.AgentFinished("react", "failed", "", "model call failed"))
        session.finish(Outcome("react", False, "failed", "model call failed"))
        await settle(pilot)
        text = transcript_text(app)
        assert "model call failed (auth): the server rejected the API key (HTTP 401)" in text
        assert "turn failed: model call failed" in text
        await submit(pilot, "try again")
        assert session.submitted == ["hi", "try again"]


async def test_a_job_that_fails_without_events_is_reported(app, session):
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/plan x")
        session.finish(Outcome("plan", False, "FAILED", "planning failed: no JSON object"))
        await settle(pilot)
        assert "plan failed: planning failed: no JSON object" in transcript_text(app)


async def test_final_text_is_shown_when_nothing_was_streamed(app, session):
    async with app.run_test(size=SIZE) as pilot:
        session.bus.publish(ev.AgentFinished("react", "final", "All **done**."))
        await settle(pilot)
        assert "All **done**." in transcript_text(app)


async def test_usage_reaches_the_status_bar(app, session):
    async with app.run_test(size=SIZE) as pilot:
        session.bus.publish(ev.ModelResponse("react", "c1", "ok", "", (), "stop", 1200, 34, 1000, 0.1))
        await settle(pilot)
        assert text_of(app, "#status-tokens") == "in 1.2k · out 34 · cached 1k"
        assert text_of(app, "#status-model") == "demo"
        assert text_of(app, "#status-workspace") == "/work/demo-project"


async def test_plan_and_team_events_get_one_line_each(app, session):
    async with app.run_test(size=SIZE) as pilot:
        plan = {"tasks": [{"id": "task_1"}, {"id": "task_2"}]}
        session.bus.publish(ev.PlanProposed("planner", 1, "initial", "goal", plan))
        session.bus.publish(ev.TaskStatusChanged("engine", "task_1", "COMPLETED"))
        session.bus.publish(ev.ReviewVerdictGiven("reviewer-step_2", "step_2", 1, False, "missing tests"))
        session.bus.publish(ev.RunFinished("engine", "COMPLETED", "2 of 2 tasks done"))
        await settle(pilot)
        text = transcript_text(app)
        assert "[planner] plan v1 (initial): 2 tasks" in text
        assert "task_1 completed" in text
        assert "step_2 rejected: missing tests" in text
        assert "run COMPLETED: 2 of 2 tasks done" in text


async def test_the_transcript_is_bounded(app, session):
    async with app.run_test(size=SIZE) as pilot:
        app.main_screen.transcript.max_entries = 20
        for i in range(50):
            session.bus.publish(ev.AgentNote("react", f"note {i}"))
        await settle(pilot)
        text = transcript_text(app)
        assert len(app.main_screen.transcript.children) == 20
        assert "note 49" in text and "note 29" not in text


async def test_a_streamed_answer_is_one_widget_that_draws_its_finished_blocks_once(app, session):
    """A long answer is one widget painted as lines (Textual's Markdown
    mounted a widget per block: ~600 for 6,000 characters, each walked by
    every layout of the transcript); blocks already drawn are not drawn again."""
    async with app.run_test(size=SIZE) as pilot:
        _publish_stream(session, "react", "c1", ["# Title\n\n", "First paragraph.\n\n", "Second"])
        await settle(pilot)
        (answer,) = [m for m in app.main_screen.transcript.query(MarkdownText) if "answer" in m.classes]
        assert not answer.children
        width = answer.content_size.width
        rows = answer.rows(width)
        assert [row.text.rstrip() for row in rows] == ["", "Title", "First paragraph.", "", "Second"]
        first = rows[1]
        _publish_stream(session, "react", "c1", [" paragraph, longer.\n\n", "- a list item\n"])
        await settle(pilot)
        rows = answer.rows(width)
        assert rows[1] is first, "a finished block was drawn again"
        assert [row.text.rstrip() for row in rows][4:] == ["Second paragraph, longer.", "", "• a list item"]
        assert answer.region.height == len(rows)
        assert answer.source.endswith("Second paragraph, longer.\n\n- a list item\n")
