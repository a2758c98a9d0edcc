"""The conflict screen, one Pilot test per decision key, on a real merge
conflict from real git."""

from __future__ import annotations

import os
import stat

import pytest
from textual.app import App

from paicli_tui.ui.run.conflict_screen import ConflictScreen
from paicli_tui.workspace import IsolatedRun
from paicli_tui.workspace.resolver import Conflict
from tests.support.gitrepo import CALC, make_git_workspace
from tests.support.timing import scaled

pytestmark = pytest.mark.timeout(60)


def real_conflict(tmp_path) -> tuple[IsolatedRun, Conflict]:
    run = IsolatedRun.begin_run(make_git_workspace(tmp_path / "ws"), "ui", tmp_path / "isolation")
    first, second = run.attempt("task_1", "w1"), run.attempt("task_2", "w2")
    (first.path / "src" / "calc.py").write_text(CALC.replace("a + b", "a + b + 0"))
    (second.path / "src" / "calc.py").write_text(CALC.replace("a + b", "b + a"))
    run.merge(first, run.commit(first))
    result = run.merge(second, run.commit(second))
    return run, Conflict("task_2", "swap the operands", second, result.outcome)


class Host(App):
    def __init__(self, conflict: Conflict) -> None:
        super().__init__()
        self.conflict = conflict
        self.decision = None

    def on_mount(self) -> None:
        self.push_screen(ConflictScreen(self.conflict), callback=lambda d: setattr(self, "decision", d))


async def decide(tmp_path, key: str):
    run, conflict = real_conflict(tmp_path)
    app = Host(conflict)
    async with app.run_test(size=(100, 36)) as pilot:
        await pilot.pause()
        shown = str(app.screen.query_one("#conflict-files").render())
        assert "src/calc.py" in shown and "return b + a" in shown and "return a + b + 0" in shown
        await pilot.press(key)
        await pilot.pause()
    run.close()
    return app.decision


@pytest.mark.parametrize("key, choice", [("r", "rerun"), ("d", "drop"), ("escape", "fail")])
async def test_rerun_drop_and_fail_keys(tmp_path, key, choice):
    decision = await decide(tmp_path, key)
    assert decision.choice == choice and not decision.files


@pytest.mark.parametrize("key, side", [("o", "theirs"), ("t", "ours")])
async def test_keep_a_side_per_file(tmp_path, key, side):
    decision = await decide(tmp_path, key)
    assert decision.choice == "resolve" and decision.files == {"src/calc.py": side}


async def test_edit_in_the_editor(tmp_path, monkeypatch):
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nprintf 'def add(a, b):\\n    return sum((a, b))\\n' > \"$1\"\n")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)
    decision = await decide(tmp_path, "e")
    assert decision.choice == "resolve"
    assert decision.files == {"src/calc.py": b"def add(a, b):\n    return sum((a, b))\n"}
    assert os.environ["EDITOR"] == str(editor)


async def test_the_app_shows_a_conflict_from_an_engine_thread_and_releases_it(tmp_path, app):
    """The engine's wait ends with the key the person pressed on the screen
    the app pushed for the resolver's prompt."""
    import threading

    from tests.ui.conftest import settle

    run, conflict = real_conflict(tmp_path)
    answers = []
    async with app.run_test(size=(100, 36)) as pilot:
        worker = threading.Thread(target=lambda: answers.append(app.conflicts.decide(conflict, threading.Event())))
        worker.start()
        for _ in range(50):
            await settle(pilot)
            if isinstance(app.screen, ConflictScreen):
                break
        assert isinstance(app.screen, ConflictScreen)
        await pilot.press("d")
        await pilot.pause()
        worker.join(timeout=scaled(10))
    run.close()
    assert [a.choice for a in answers] == ["drop"]
