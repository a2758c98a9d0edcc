"""/undo in the product's app over a real Session: a scripted model behind a
real HTTP server, a /plan whose two tasks edit two real files, then the undo
screen — the diff first, a byte-for-byte restore, a file changed by hand
kept unless the person says overwrite, and one task undone from the run
screen."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList, Static

from paicli_tui.config.settings import Settings
from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.session.live import Session
from paicli_tui.ui.app import PaicliApp
from paicli_tui.ui.review.plan_reviewer import UIPlanReviewer
from paicli_tui.ui.conversation.main_screen import MainScreen
from paicli_tui.ui.review.plan_review import PlanReviewScreen
from paicli_tui.ui.run.run_screen import RunScreen
from paicli_tui.ui.undo.conflict_dialog import ConflictDialog
from paicli_tui.ui.undo.undo_screen import UndoScreen
from tests.support.recorder import task_plan
from tests.support.server import LoopbackServer
from tests.ui.conftest import submit, transcript_text
from tests.ui.test_run_screen_flow import until

pytestmark = pytest.mark.timeout(90)

A = b"alpha\nbeta\r\ngamma \xc3\xa9\n"
B = b"def b():\n    return 1\n"


def two_edits() -> Script:
    return Script({
        "planner": [task_plan(("edit a.txt", []), ("edit src/b.py", []), kind="FILE_WRITE")],
        "task_1": [Reply(tool_calls=[("edit_file", {"path": "a.txt", "old_string": "beta", "new_string": "BETA"})]),
                   Reply(content="a edited")],
        "task_2": [Reply(tool_calls=[("edit_file", {"path": "src/b.py", "old_string": "1", "new_string": "2"})]),
                   Reply(content="b edited")],
    })


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "a.txt").write_bytes(A)
    (root / "src" / "b.py").write_bytes(B)
    return root


@pytest.fixture
def product(workspace):
    """The app wired as `paicli` wires it, over a loopback model server."""
    with LoopbackServer(two_edits()) as server:
        reviewer = UIPlanReviewer()
        settings = Settings(provider="custom", base_url=server.base_url, model="m", max_retries=0, parallelism=2)
        session = Session(settings, workspace, plan_reviewer=reviewer)
        app = PaicliApp(session, remember_theme=False)
        reviewer.attach(app)
        try:
            yield app, session
        finally:
            session.close()


async def run_the_plan(pilot, app, session) -> RunScreen:
    await submit(pilot, "/plan edit both files")
    await until(pilot, lambda: isinstance(app.screen, PlanReviewScreen), "the review screen")
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(app.screen, RunScreen), "the run screen")
    screen = app.screen
    await until(pilot, lambda: screen.model.finished and not session.busy, "the end of the run")
    return screen


async def open_undo(pilot, app) -> UndoScreen:
    await submit(pilot, "/undo")
    await until(pilot, lambda: isinstance(app.screen, UndoScreen), "the undo screen")
    await pilot.pause()
    return app.screen


def file_rows(screen: UndoScreen) -> list[str]:
    files = screen.query_one("#undo-files", OptionList)
    return [str(files.get_option_at_index(i).prompt) for i in range(files.option_count)]


async def test_undo_shows_the_diff_then_restores_both_files_byte_for_byte(product, workspace):
    app, session = product
    async with app.run_test(size=(120, 36)) as pilot:
        await run_the_plan(pilot, app, session)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MainScreen), "the main screen")
        await until(pilot, lambda: "2 files changed (a.txt, src/b.py) · /undo reverts" in transcript_text(app),
                    "the changes line")
        screen = await open_undo(pilot, app)
        assert [row.split("  ")[0] for row in file_rows(screen)] == ["↶ a.txt", "↶ src/b.py"]
        diff = str(screen.query_one("#undo-diff-text", Static).render())
        assert "-BETA" in diff and "+beta" in diff  # what reverting does, before anything is touched
        assert (workspace / "a.txt").read_bytes() != A
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, MainScreen), "the undo screen closing")
        await until(pilot, lambda: "↶ undo: restored a.txt, src/b.py" in transcript_text(app), "the undo line")
    assert (workspace / "a.txt").read_bytes() == A
    assert (workspace / "src" / "b.py").read_bytes() == B


async def test_a_file_changed_by_hand_is_not_overwritten_without_a_yes(product, workspace):
    app, session = product
    async with app.run_test(size=(120, 36)) as pilot:
        await run_the_plan(pilot, app, session)
        await pilot.press("escape")
        (workspace / "a.txt").write_bytes(b"mine now\n")
        screen = await open_undo(pilot, app)
        rows = file_rows(screen)
        assert rows[0].startswith("⚠ a.txt") and "changed since by hand or by a command" in rows[0]
        assert "changed since: reverting asks before overwriting" in str(screen.query_one("#undo-notes").render())

        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ConflictDialog), "the conflict question")
        await pilot.press("escape")  # cancel: nothing at all changes
        await until(pilot, lambda: isinstance(app.screen, UndoScreen), "back on the undo screen")
        assert (workspace / "src" / "b.py").read_bytes() != B

        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ConflictDialog), "the conflict question")
        await pilot.press("k")  # keep the hand-made file, revert the rest
        await until(pilot, lambda: (workspace / "src" / "b.py").read_bytes() == B, "b.py restored")
        assert (workspace / "a.txt").read_bytes() == b"mine now\n"
        await until(pilot, lambda: isinstance(app.screen, UndoScreen), "the undo screen, still open")
        assert [row.split("  ")[0] for row in file_rows(app.screen)] == ["⚠ a.txt"]

        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ConflictDialog), "the conflict question")
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, MainScreen), "the undo screen closing")
    assert (workspace / "a.txt").read_bytes() == A


async def test_the_run_screen_undoes_one_task(product, workspace):
    app, session = product
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await run_the_plan(pilot, app, session)
        assert screen.task_tree.select_task("task_2")
        await pilot.pause()
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, UndoScreen), "the undo screen")
        undo = app.screen
        assert undo.task_id == "task_2" and [r.split("  ")[0] for r in file_rows(undo)] == ["↶ src/b.py"]
        assert "task_2 only" in str(undo.query_one("#undo-title").render())
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, RunScreen), "back on the run screen")
    assert (workspace / "src" / "b.py").read_bytes() == B
    assert b"BETA" in (workspace / "a.txt").read_bytes()


async def test_undo_waits_while_a_run_is_going(session, app):
    from tests.ui.conftest import settle
    from paicli_tui.checkpoints.service import Checkpoints

    session.checkpoints = Checkpoints(session.workspace, "s")
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "a question")
        await submit(pilot, "/undo")
        await settle(pilot)
        assert not isinstance(app.screen, UndoScreen)
        assert "a run is going: /undo once it ends" in transcript_text(app)
