"""The run screen's way into undo: a callback that opens the undo screen on
one task's changes of the run the screen shows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from textual.app import App

    from paicli_tui.session.port import SessionPort


def task_undo_opener(app: "App", session: "SessionPort") -> Callable[[str, int], None] | None:
    """For a run screen opened now: the session's open run is the one it
    shows. None when there is nothing to undo from (a replay)."""
    checkpoints = session.checkpoints
    run_id = checkpoints.recorder.current_run_id if checkpoints is not None else None
    if checkpoints is None or run_id is None:
        return None

    def open_undo(task_id: str, version: int) -> None:
        from paicli_tui.ui.undo.undo_screen import UndoScreen

        app.push_screen(UndoScreen(checkpoints, run_id=run_id, task=task_id, version=version or None))

    return open_undo
