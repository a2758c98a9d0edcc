"""The prompt editor in the real `paicli --demo`, in a pseudo-terminal:
the bytes terminals send for a bracketed paste, Shift+Enter (kitty's
``ESC [ 13 ; 2 u``, xterm's modifyOtherKeys ``ESC [ 27 ; 2 ; 13 ~``),
Alt+Enter (modifyOtherKeys ``ESC [ 27 ; 3 ; 13 ~``), Ctrl+J (LF) and a
burst of keys in one write. What was sent is read back
from the ledger's ``run_requested`` goal: the exact text the engine got."""

from __future__ import annotations

import time

import pytest

from tests.support.cli import events, ledger_lines, paicli_env
from tests.support.procs import wait_for_ledger_event
from tests.support.pty_app import PtyApp

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

STEP = 40.0
PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"
KITTY_SHIFT_ENTER = b"\x1b[13;2u"
XTERM_SHIFT_ENTER = b"\x1b[27;2;13~"
XTERM_ALT_ENTER = b"\x1b[27;3;13~"
CTRL_J = b"\n"
CTRL_U = b"\x15"


@pytest.fixture
def home(tmp_path):
    return tmp_path / "home"


@pytest.fixture
def demo(tmp_path, home):
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "README.md").write_text("# Demo\n", encoding="utf-8")
    app = PtyApp(["--demo"], cwd=workspace, env=paicli_env(home), columns=120, lines=36)
    app.wait_for(lambda text: "shift+tab to cycle" in text, STEP)
    yield app
    app.close()


def prompt_rows(text: str) -> list[str]:
    """The text rows inside the prompt's border, as on screen."""
    rows = []
    for line in text.splitlines():
        if line.startswith("▊") and line.rstrip().endswith("▎") and "▔" not in line and "▁" not in line:
            rows.append(line.strip()[1:-1].strip())
    return rows


def sent_goal(home) -> str:
    wait_for_ledger_event(home, "run_requested", STEP)
    (requested,) = events(ledger_lines(home), "run_requested")
    return requested["payload"]["goal"]


def test_a_bracketed_paste_of_three_lines_arrives_whole(demo, home):
    demo.send(PASTE_START + b"a\nb\nc" + PASTE_END)
    demo.wait_for(lambda text: prompt_rows(text) == ["a", "b", "c"], STEP)
    demo.send(b"\r")
    assert sent_goal(home) == "a\nb\nc"


def test_shift_enter_in_both_encodings_ctrl_j_and_alt_enter_insert_new_lines(demo, home):
    demo.send(b"one" + KITTY_SHIFT_ENTER + b"two" + XTERM_SHIFT_ENTER + b"three" + CTRL_J + b"four"
              + XTERM_ALT_ENTER + b"five")
    demo.wait_for(lambda text: prompt_rows(text) == ["one", "two", "three", "four", "five"], STEP)
    demo.send(b"\r")
    assert sent_goal(home) == "one\ntwo\nthree\nfour\nfive"


def test_ctrl_u_text_and_enter_in_one_write_submit_the_text(demo, home):
    demo.type("old draft")
    demo.wait_for(lambda text: prompt_rows(text) == ["old draft"], STEP)
    time.sleep(0.2)
    demo.send(CTRL_U + b"the new words\r")
    assert sent_goal(home) == "the new words"
