"""The product's app over a real Session and the offline demo model: the run
screen opens for runs that were never reviewed, a plan file opens the review
screen, and a run ends with its summary in the transcript."""

from __future__ import annotations

import json

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.offline.demo import DemoTransport
from paicli_tui.session.live import Session
from paicli_tui.ui.app import PaicliApp
from paicli_tui.ui.review.plan_reviewer import UIPlanReviewer, load_plan_file
from paicli_tui.ui.conversation.main_screen import MainScreen
from paicli_tui.ui.conversation.transcript_answers import AnswerEntry
from paicli_tui.ui.help.help_screen import HelpScreen
from paicli_tui.ui.review.plan_review import PlanReviewScreen
from paicli_tui.ui.run.run_screen import RunScreen
from tests.ui.conftest import transcript_text
from tests.ui.test_run_screen_flow import until

pytestmark = pytest.mark.timeout(60)


def product_app(tmp_path, plan=None, **settings) -> tuple[PaicliApp, Session]:
    """Wired as `paicli` wires it (commands/tui.py)."""
    (tmp_path / "README.md").write_text("# Demo\nA small project.\n", encoding="utf-8")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("print('hi')\n", encoding="utf-8")
    reviewer = UIPlanReviewer()
    session = Session(Settings(provider="demo", **settings), tmp_path, plan_reviewer=reviewer,
                      transport=DemoTransport(pace=0.0))
    app = PaicliApp(session, remember_theme=False, plan=plan)
    reviewer.attach(app)
    return app, session


def run_screens(app) -> list[RunScreen]:
    return [screen for screen in app.screen_stack if isinstance(screen, RunScreen)]


async def test_an_unreviewed_team_run_opens_the_run_screen_and_ends_in_the_transcript(tmp_path):
    app, session = product_app(tmp_path, team_review=False)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            prompt = app.main_screen.prompt
            prompt.value = "/team survey the project"
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, RunScreen), "the run screen")
            screen = app.screen
            assert screen.kind == "team" and screen.goal == "survey the project"
            await until(pilot, lambda: screen.model.finished, "the end of the run")
            assert run_screens(app) == [screen]
            assert all(pane.text for pane in screen.panes)  # both workers streamed into their panes
            await until(pilot, lambda: "run COMPLETED" in transcript_text(app), "the summary in the transcript")
            # No sub-agent streamed there; the one Markdown entry is the run's answer, whole.
            (answer,) = app.main_screen.transcript.query(AnswerEntry)
            assert answer.actor == "answer" and answer.body.source == app.main_screen.painter.last_answer != ""
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, MainScreen), "back to the main screen")
    finally:
        session.close()


async def test_a_plan_file_opens_the_review_screen_then_one_run_screen(tmp_path):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"goal": "Survey from a file", "steps": [
        {"id": "a", "description": "Read the README", "type": "FILE_READ"},
        {"id": "b", "description": "List the sources", "type": "FILE_READ"},
        {"id": "c", "description": "Summarise", "type": "ANALYSIS", "dependencies": ["a", "b"]},
    ]}), encoding="utf-8")
    plan = load_plan_file(path)
    app, session = product_app(tmp_path, plan=plan)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, PlanReviewScreen), "the review screen")
            review = app.screen
            assert review.state.prefix == "step" and review.goal == "Survey from a file"
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, RunScreen), "the run screen")
            screen = app.screen
            await until(pilot, lambda: screen.model.finished, "the end of the run")
            assert run_screens(app) == [screen] and screen.model.version == 1
            assert screen.model.status == "COMPLETED"
            assert "/team Survey from a file  (plan file)" in transcript_text(app)
    finally:
        session.close()


async def test_model_command_switches_the_model_for_later_requests(tmp_path):
    # A served model (here the demo transport behind a custom base URL) takes any name.
    session = Session(Settings(provider="custom", base_url="http://127.0.0.1:9/v1", model="m"), tmp_path,
                      transport=DemoTransport(pace=0.0))
    app = PaicliApp(session, remember_theme=False)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            prompt = app.main_screen.prompt
            prompt.value = "/model other-model"
            await pilot.press("enter")
            await until(pilot, lambda: "model: other-model" in transcript_text(app), "the model line")
            assert "other-model" in str(app.main_screen.status.query_one("#status-model").render())
            requests: list = []
            session.bus.subscribe(lambda e: requests.append(e) if e.name == "model_request" else None)
            prompt.value = "what is here?"
            await pilot.press("enter")
            await until(pilot, lambda: not session.busy and session.usage.prompt_tokens > 0, "the answer")
            assert requests and all(r.model == "other-model" for r in requests)
            prompt.value = "/model two words"
            await pilot.press("enter")
            await until(pilot, lambda: "usage: /model NAME" in transcript_text(app), "the usage line")
    finally:
        session.close()


async def test_the_demo_refuses_another_model_name_and_keeps_its_label(tmp_path):
    app, session = product_app(tmp_path)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            label = str(app.main_screen.status.query_one("#status-model").render())
            app.main_screen.prompt.value = "/model gpt-4o"
            await pilot.press("enter")
            await until(pilot, lambda: "the offline demo has no other models" in transcript_text(app), "the refusal")
            assert str(app.main_screen.status.query_one("#status-model").render()) == label
            assert "gpt-4o (DEMO)" not in transcript_text(app) and session.model_label == "demo (DEMO)"
    finally:
        session.close()


async def test_a_missing_api_key_is_said_at_start_and_the_app_stays_usable(tmp_path):
    session = Session(Settings(provider="deepseek"), tmp_path)
    app = PaicliApp(session, remember_theme=False)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: "DEEPSEEK_API_KEY is not set" in transcript_text(app), "the key warning")
            app.main_screen.prompt.value = "/help"
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, HelpScreen) and "/plan" in app.screen.help_text(),
                        "the help")
    finally:
        session.close()
