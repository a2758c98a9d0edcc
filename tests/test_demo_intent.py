"""The demo model answers the question it was asked (P-1.7): a named folder,
a named file, a greeting, a search, and in ASK mode any change request
proposes its one scratch write. Real ChatClient on the demo transport, real
read-only tools on a temporary workspace."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from paicli_tui.llm.offline.demo_intent import read_intent
from paicli_tui.llm.offline.demo_roles import SCRATCH_FILE
from paicli_tui.policy.approval import Decision
from paicli_tui.prompting.assembler import with_turn_context
from paicli_tui.session.attachments import read_attachments, with_attachments
from tests.test_demo_model import Demo, _Answer, _ask_mode_agent, ask

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def demo(tmp_path: Path):
    root = tmp_path / "ws"
    (root / "invoicer").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "README.md").write_text("# Invoicer\n\nMakes invoices.\n")
    (root / "invoicer" / "render.py").write_text("def render(total):\n    return currency(total)\n\n\n"
                                                 "def currency(value):\n    return f'${value:.2f}'\n")
    (root / "invoicer" / "cli.py").write_text("import argparse\n\n\ndef main():\n    pass\n")
    (root / "tests" / "test_render.py").write_text("def test_render():\n    pass\n")
    session = Demo(root)
    yield session
    session.client.close()


def calls(demo) -> list[tuple[str, dict]]:
    return [(name, args) for name, args, _ in demo.tool_calls()]


def test_a_folder_question_lists_that_folder(demo):
    outcome = ask(demo.agent("react", "react"), "what is in tests")
    assert ("list_dir", {"path": "tests"}) in calls(demo)
    assert "test_render.py" in outcome.text
    assert "README" not in outcome.text and "Invoicer" not in outcome.text


def test_a_mentioned_file_is_read_and_explained(demo):
    outcome = ask(demo.agent("react", "react"), "explain @invoicer/render.py")
    assert calls(demo) == [("read_file", {"path": "invoicer/render.py"})]
    assert "`render`" in outcome.text and "`currency`" in outcome.text and "README" not in outcome.text


def test_an_attached_file_is_answered_from_the_message(demo):
    text = with_attachments("explain @invoicer/render.py", read_attachments(demo.workspace, ["invoicer/render.py"]))
    outcome = ask(demo.agent("react", "react"), text)
    assert calls(demo) == []
    assert "`currency`" in outcome.text


def test_a_greeting_gets_a_greeting_and_no_tools(demo):
    outcome = ask(demo.agent("react", "react"), "hello")
    assert calls(demo) == []
    assert "offline demo model" in outcome.text and "README" not in outcome.text.replace("@README.md", "")


def test_where_is_a_name_searches_for_it(demo):
    outcome = ask(demo.agent("react", "react"), "where is currency defined?")
    assert calls(demo) == [("grep_code", {"pattern": "currency"})]
    assert "`currency`" in outcome.text


@pytest.mark.parametrize("request_text", ["add a --verbose flag to invoicer/cli.py", "make the tests faster",
                                          "Rename render to draw"])
def test_in_ask_mode_any_change_request_proposes_the_scratch_write(demo, request_text):
    approver = _Answer(Decision.NO)
    agent = _ask_mode_agent(demo, approver)
    agent.run_turn(with_turn_context(request_text, approval_mode="ask"), cancel=threading.Event())
    [request] = approver.requests
    assert request.tool == "write_file" and request.arguments["path"] == SCRATCH_FILE


@pytest.mark.parametrize(("text", "kind"), [
    ("hi!", "greeting"), ("Thanks", "greeting"), ("what is in tests", "words"),
    ("explain @invoicer/render.py", "path"), ("show me src/", "path"), ("where is main", "search"),
    ("what does `parse_args` do", "search"), ("what is this project?", "overview"), ("?", "overview"),
    ("add a --verbose flag", "change"),
])
def test_intent_is_read_from_the_question(text, kind):
    assert read_intent(text).kind == kind


def test_an_instruction_is_a_change_only_in_ask_mode():
    assert read_intent("make it faster", "ask").kind == "change"
    assert read_intent("explain the layout", "ask").kind != "change"
