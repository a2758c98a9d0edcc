"""Settings that passed validation before draw the first screen without
pydantic and are validated again after it; settings that changed are
validated before the screen opens. The real `paicli` in a pseudo-terminal."""

from __future__ import annotations

import os
import sys

import pytest

from paicli_tui.cli import build_parser
from paicli_tui.commands.common import settings_overrides
from paicli_tui.config.paths import config_file
from paicli_tui.config.preview import read_preview, remember_checked
from paicli_tui.config.settings import Settings
from tests.support.pty_app import PtyApp

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

STEP = 40.0
CTRL_C = b"\x03"

#: `paicli`, recording whether pydantic was imported when the first frame was
#: drawn (the app starts the session right after it) in the file named by argv[1].
PROBE = """
import sys
from paicli_tui.ui.app import PaicliApp
out, start = sys.argv.pop(1), PaicliApp.start_session
def recorded(self):
    with open(out, "a") as f:
        f.write(str("pydantic" in sys.modules) + "\\n")
    start(self)
PaicliApp.start_session = recorded
from paicli_tui.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture(autouse=True)
def config_folder():
    config_file().parent.mkdir(parents=True, exist_ok=True)  # PAICLI_HOME: the test's own (conftest.py)


def _start(tmp_path, record) -> PtyApp:
    env = dict(os.environ)
    return PtyApp([str(record), "--demo", "-w", str(tmp_path)], cwd=tmp_path, env=env,
                  program=[sys.executable, "-c", PROBE])


def _recorded_as_passed():
    """Record the settings `paicli --demo` reads now as having passed validation."""
    overrides = settings_overrides(build_parser().parse_args(["--demo"]))
    remember_checked(read_preview(overrides), list(Settings.model_fields))
    return read_preview(overrides)


def _screen_at_exit_2(tmp_path, record) -> str:
    """Start `paicli --demo`, expect it to end with exit 2; the terminal's text then."""
    app = _start(tmp_path, record)
    try:
        assert app.wait_exit(STEP) == 2
        app.pump(0.5)
        return app.text()
    finally:
        app.close()


def _quit(app: PtyApp) -> int | None:
    app.send(CTRL_C)
    app.wait_for(lambda text: "again to quit" in text, STEP)
    app.send(CTRL_C)
    return app.wait_exit(STEP)


def test_settings_that_passed_before_draw_the_first_screen_without_pydantic(tmp_path):
    config_file().write_text('theme = "paicli-light"\nworkers = 3\n', encoding="utf-8")
    record = tmp_path / "pydantic-at-first-frame"
    for _ in range(2):
        app = _start(tmp_path, record)
        try:
            app.wait_for(lambda text: "shift+tab to cycle" in text, STEP)
            app.wait_for(lambda text: "starting…" not in text, STEP)  # the session validated and started
            assert _quit(app) == 0
        finally:
            app.close()
    # First start: validated before the screen; second: after it.
    assert record.read_text().split() == ["True", "False"]


def test_settings_that_fail_after_the_first_frame_close_the_app_with_their_one_line(tmp_path):
    # A record claiming these very settings passed (say, before paicli was
    # updated to refuse them): they are validated after the first frame.
    config_file().write_text('workers = "many"\n', encoding="utf-8")
    assert _recorded_as_passed().checked_before
    record = tmp_path / "pydantic-at-first-frame"
    text = _screen_at_exit_2(tmp_path, record)
    assert record.read_text().split() == ["False"]  # the screen had opened
    lines = [line for line in text.splitlines() if "paicli:" in line]
    assert len(lines) == 1 and "config.toml" in lines[0] and "workers" in lines[0], text


def test_settings_changed_since_they_passed_are_refused_before_the_screen(tmp_path):
    config_file().write_text('workers = 3\n', encoding="utf-8")
    _recorded_as_passed()
    config_file().write_text('workers = "many"\n', encoding="utf-8")
    record = tmp_path / "pydantic-at-first-frame"
    text = _screen_at_exit_2(tmp_path, record)
    assert not record.exists()  # no first frame
    assert "shift+tab to cycle" not in text
    assert "workers" in text and "config.toml" in text
