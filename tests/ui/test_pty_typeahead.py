"""A prompt typed while `paicli --demo` is still starting is sent when the
screen comes up: its Return stays a Return (the kernel's CR→LF is switched
off before the slow imports), and the person's terminal settings are back
after the exit. The real binary in a pseudo-terminal."""

from __future__ import annotations

import os
import termios
import time

import pytest

from tests.support.pty_app import PtyApp
from tests.support.timing import scaled

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def test_a_prompt_typed_during_start_up_is_sent(tmp_path):
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "README.md").write_text("# Demo\n\nA tiny project.\n", encoding="utf-8")
    env = {**os.environ, "PAICLI_HOME": str(tmp_path / "home")}
    app = PtyApp(["--demo"], cwd=workspace, env=env, columns=120, lines=36)
    try:
        before = termios.tcgetattr(app.master)
        # The start-up window: typed-ahead keys are held (no CR→LF, no echo) but the
        # app is not up yet (Textual's raw mode also switches signals off).
        deadline = time.monotonic() + scaled(20)
        while True:
            attrs = termios.tcgetattr(app.master)
            if not attrs[0] & termios.ICRNL and attrs[3] & termios.ISIG:
                break
            assert time.monotonic() < deadline and attrs[3] & termios.ISIG, "no start-up window held the keys"
            time.sleep(0.002)
        app.send(b"hello\r")
        screen = app.wait_for(lambda text: "offline demo model" in text, 40)
        assert "› hello" in screen
        # Idle first (a Ctrl+C during the answer would cancel it), then twice quits;
        # each press waits for the screen, not a fixed second a loaded machine outlasts.
        app.wait_for(lambda text: "Enter to send" in text, 40)
        app.send(b"\x03")
        app.wait_for(lambda text: "again to quit" in text, 20)
        app.send(b"\x03")
        assert app.wait_exit(20) == 0
        assert termios.tcgetattr(app.master) == before
    finally:
        app.close()
