"""The conflict dialog at the end of a run: the person edited a file during
the run that the run's result changes too. One Pilot test per choice (keep
mine, take the run's, edit in $EDITOR, keep both with markers, Esc), the
whole path from the session's resolver through the app's dialog to the
files, and snapshots at 80x24 and 120x36, over real git."""

from __future__ import annotations

import stat
import threading

import pytest

from paicli_tui.ui.run.conflict_screen import ConflictScreen
from paicli_tui.workspace.merge import OURS, THEIRS
from paicli_tui.workspace.resolver import APPLY, Conflict
from tests.support.apply_conflict import MINE, RUNS, apply_outcome, run_with_an_edit_during_it
from tests.support.timing import scaled
from tests.ui.run_host import HostApp, screen_text

pytestmark = pytest.mark.timeout(90)


def apply_conflict(tmp_path):
    workspace, run = run_with_an_edit_during_it(tmp_path)
    conflict = Conflict("run", "the run's result, onto your edits made during the run", None, apply_outcome(run),
                        stage=APPLY)
    return workspace, run, conflict


class Host(HostApp):
    def __init__(self, conflict: Conflict) -> None:
        super().__init__()
        self.conflict = conflict
        self.decision = None

    def on_mount(self) -> None:
        super().on_mount()
        self.push_screen(ConflictScreen(self.conflict), callback=lambda d: setattr(self, "decision", d))


async def press(tmp_path, key: str):
    _, run, conflict = apply_conflict(tmp_path)
    app = Host(conflict)
    async with app.run_test(size=(100, 36)) as pilot:
        await pilot.pause()
        shown = screen_text(app)
        assert "your edits and the run's" in shown and "src/calc.py" in shown
        assert "b + a  # mine" in shown and "a + b + 0" in shown
        assert "m keep mine" in shown and "re-run" not in shown
        await pilot.press(key)
        await pilot.pause()
    run.close()
    return app.decision, conflict


@pytest.mark.parametrize("key, side", [("m", OURS), ("u", THEIRS), ("escape", OURS)])
async def test_keep_mine_take_the_runs_and_escape(tmp_path, key, side):
    decision, _ = await press(tmp_path, key)
    assert decision.choice == "resolve" and decision.files == {"src/calc.py": side}


async def test_keep_both_as_conflict_markers(tmp_path):
    decision, conflict = await press(tmp_path, "b")
    marked = decision.files["src/calc.py"]
    assert marked == conflict.outcome.conflicts[0].marked.encode()
    assert b"<<<<<<< workspace" in marked and b">>>>>>> run" in marked


async def test_edit_in_the_editor(tmp_path, monkeypatch):
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nprintf 'def add(a, b):\\n    return sum((a, b))\\n' > \"$1\"\n")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)
    decision, _ = await press(tmp_path, "e")
    assert decision.files == {"src/calc.py": b"def add(a, b):\n    return sum((a, b))\n"}


async def test_the_merge_keys_do_nothing_at_the_apply(tmp_path):
    _, run, conflict = apply_conflict(tmp_path)
    app = Host(conflict)
    async with app.run_test(size=(100, 36)) as pilot:
        await pilot.pause()
        for key in ("r", "d", "o", "t"):
            await pilot.press(key)
        await pilot.pause()
        assert app.decision is None and isinstance(app.screen, ConflictScreen)
    run.close()


@pytest.mark.parametrize("key, expected", [("m", MINE), ("u", RUNS)])
async def test_the_session_applies_what_the_person_chose_in_the_apps_dialog(tmp_path, app, key, expected):
    """The session's end of run asks the app's resolver; the dialog's answer
    reaches the files."""
    from paicli_tui.config.settings import Settings
    from paicli_tui.events import EventBus
    from paicli_tui.session.run_isolation import RunIsolation
    from paicli_tui.workspace.apply import apply_run
    from tests.ui.conftest import settle

    workspace, run = run_with_an_edit_during_it(tmp_path)
    isolation = RunIsolation(workspace, Settings(), EventBus("s"), checkpoints=None)
    isolation.resolver = app.conflicts
    reports = []
    async with app.run_test(size=(100, 36)) as pilot:
        worker = threading.Thread(
            target=lambda: reports.append(apply_run(run, "tree", decide=isolation._decide_apply)))
        worker.start()
        for _ in range(50):
            await settle(pilot)
            if isinstance(app.screen, ConflictScreen):
                break
        assert isinstance(app.screen, ConflictScreen) and app.screen.at_apply
        await pilot.press(key)
        await pilot.pause()
        worker.join(timeout=scaled(20))
    run.close()
    assert (workspace / "src" / "calc.py").read_text() == expected
    assert (workspace / "other.py").exists() and len(reports) == 1


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
def test_an_apply_conflict_looks_like_this(snap_compare, size, tmp_path):
    _, run, conflict = apply_conflict(tmp_path)
    try:
        assert snap_compare(Host(conflict), terminal_size=size)
    finally:
        run.close()
