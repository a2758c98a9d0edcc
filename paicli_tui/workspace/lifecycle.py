"""Starting and ending a run's isolation, as the session does it: where the
shadow lives, what turns isolation off, and the one warning a person sees
when it cannot be used."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from paicli_tui.checkpoints.store import workspace_key
from paicli_tui.config.settings import data_dir
from paicli_tui.workspace.git import GitError, IsolationUnavailable
from paicli_tui.workspace.run import IsolatedRun

if TYPE_CHECKING:
    from paicli_tui.config.settings import Settings
    from paicli_tui.events import EventBus


def isolation_root(workspace: Path) -> Path:
    return data_dir() / "isolation" / workspace_key(workspace)


def begin_isolation(
    workspace: Path, run_id: str, settings: "Settings", bus: "EventBus | None", slots: list[str],
) -> tuple[IsolatedRun | None, str]:
    """The run's isolation, or None and why not (one line for the person;
    empty when it is switched off on purpose). The first slot's tree is
    made in the background at once: it is the slowest step of a run's start."""
    if settings.isolation == "off":
        return None, ""
    try:
        run = IsolatedRun.begin_run(workspace, run_id, isolation_root(workspace), bus=bus, warm=slots)
    except (IsolationUnavailable, GitError, OSError) as exc:
        return None, f"tasks share the workspace: task isolation is unavailable ({exc})"
    return run, ""


def swept_note(run: IsolatedRun) -> str:
    """What the person is told once when a dead run's trees were removed."""
    if not run.swept:
        return ""
    plural = "s" if run.swept != 1 else ""
    return f"removed the task trees {run.swept} stopped run{plural} left behind"
