"""The real `paicli --demo` in a pseudo-terminal, read through a VT emulator
(tests/support/pty_app.py): the bytes a terminal sends for Shift+Tab
(ESC [ Z), Esc, Ctrl+C and PageUp reach the right bindings, Ctrl+C during
a turn cancels it, and a /team run shows its review screen (where Shift+i
amends, as the hint says), then two worker
panes streaming different steps."""

from __future__ import annotations

import os
import re

import pytest

from tests.support.pty_app import PtyApp

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

SHIFT_TAB = b"\x1b[Z"
ESC = b"\x1b"
CTRL_C = b"\x03"
PAGE_UP = b"\x1b[5~"
CTRL_END = b"\x1b[1;5F"
#: Seconds a step may take: the demo paces its tokens and the machine is shared.
STEP = 40.0
PANE_TITLE = re.compile(r"(worker-\d) · (step_\d+) · attempt")


@pytest.fixture
def workspace(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text("# Demo\n\nA tiny project.\n", encoding="utf-8")
    (project / "main.py").write_text("print('hi')\n", encoding="utf-8")
    (project / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    return project


@pytest.fixture
def demo(workspace, tmp_path):
    env = {**os.environ, "PAICLI_HOME": str(tmp_path / "home")}
    app = PtyApp(["--demo"], cwd=workspace, env=env, columns=120, lines=36)
    yield app
    app.close()


def status_line(text: str) -> str:
    return text.splitlines()[-1].strip()


def pane_steps(text: str) -> dict[str, str]:
    """Worker → the step its pane title names, as on screen."""
    return dict(PANE_TITLE.findall(text))


def quit_with_ctrl_c_twice(demo: PtyApp) -> None:
    demo.send(CTRL_C)
    demo.wait_for(lambda text: "again to quit" in text, STEP)
    demo.send(CTRL_C)
    assert demo.wait_exit(STEP) == 0


def test_shift_tab_escape_and_ctrl_c_in_a_real_terminal(demo):
    demo.wait_for(lambda text: status_line(text).startswith("AUTO shift+tab to cycle"), STEP)
    for mode in ("PLAN", "ASK", "AUTO"):
        demo.send(SHIFT_TAB)
        demo.wait_for(lambda text: status_line(text).startswith(mode), STEP)
    demo.type("what is in this project?")
    demo.send(b"\r")
    demo.wait_for(lambda text: "working · esc cancels" in text, STEP)
    demo.send(ESC)
    demo.wait_for(shows_cancelled, STEP)
    quit_with_ctrl_c_twice(demo)


def shows_cancelled(text: str) -> bool:
    """The one muted line a cancel leaves, and no failure or endpoint."""
    assert "model call failed" not in text and "demo.invalid" not in text
    return any(line.strip() == "cancelled" for line in text.splitlines())


def test_ctrl_c_during_a_turn_cancels_it_and_the_app_stays(demo):
    demo.wait_for(lambda text: "Enter to send" in text, STEP)
    demo.type("what is in this project?")
    demo.send(b"\r")
    demo.wait_for(lambda text: "working · esc cancels" in text, STEP)
    demo.send(CTRL_C)
    demo.wait_for(shows_cancelled, STEP)
    shown = demo.wait_for(lambda text: "Enter to send" in text, STEP)
    assert "again to quit" not in shown
    assert demo.proc.poll() is None
    quit_with_ctrl_c_twice(demo)


def test_page_up_scrolls_the_transcript_from_the_input(demo):
    demo.wait_for(lambda text: "Enter to send" in text, STEP)
    for _ in range(12):  # four lines each (the command echoed, then the list): more than a screenful
        demo.type("/theme")
        demo.send(b"\r")
        demo.pump(0.3)
    demo.wait_for(lambda text: "type a goal" not in text and text.count("themes: paicli-dark") >= 4, STEP)
    for _ in range(3):  # a page each: up to the start of the transcript
        demo.send(PAGE_UP)
        demo.pump(0.3)
    demo.wait_for(lambda text: "type a goal" in text, STEP)
    demo.send(CTRL_END)
    demo.wait_for(lambda text: "type a goal" not in text, STEP)
    quit_with_ctrl_c_twice(demo)


def test_a_team_run_shows_two_worker_panes_with_different_steps(demo):
    demo.wait_for(lambda text: "shift+tab to cycle" in text, STEP)
    demo.type("/team survey the project")
    demo.send(b"\r")
    demo.wait_for(lambda text: "Review the team plan" in text and "Enter run" in text and "I amend" in text, STEP)
    demo.send(b"I")  # Shift+i, as the hint spells it
    demo.wait_for(lambda text: "Amend the plan: what should change?" in text, STEP)
    demo.send(ESC)
    demo.wait_for(lambda text: "Amend the plan" not in text and "Review the team plan" in text, STEP)
    demo.send(b"\r")

    def two_panes_busy(text: str) -> bool:
        steps = pane_steps(text)
        return {"worker-1", "worker-2"} <= steps.keys() and steps["worker-1"] != steps["worker-2"]

    shown = demo.wait_for(two_panes_busy, STEP)
    assert "/team · survey the project" in shown and "Steps" in shown
    demo.send(ESC)
    demo.wait_for(lambda text: "Cancel the run?" in text, STEP)
    demo.send(b"y")
    demo.wait_for(lambda text: "Run CANCELLED" in text and "[Esc/q] back" in text, STEP)
    demo.send(ESC)
    demo.wait_for(lambda text: "run CANCELLED" in text and status_line(text).startswith("AUTO"), STEP)
    quit_with_ctrl_c_twice(demo)
