"""Starting and ending a run's isolation, as the session does it: where the
shadow lives, what turns isolation off, and the one warning a person sees
when it cannot be used."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from paicli_tui.checkpoints.store import workspace_key
from paicli_tui.config.settings import data_dir
from paicli_tui.workspace.git import GitError, IsolationUnavailable
from paicli_tui.workspace.run import IsolatedRun
from paicli_tui.workspace.shadow import WORKSPACE_FILE
from paicli_tui.workspace.trees import pool_in_use

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
    sweep_gone_workspaces(data_dir() / "isolation")
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


def sweep_gone_workspaces(isolation_dir: Path) -> list[Path]:
    """Remove the shadow repository and warm trees of every workspace that no
    longer exists (unless a live process still holds one of its trees)."""
    removed: list[Path] = []
    if not isolation_dir.is_dir():
        return removed
    for root in sorted(isolation_dir.iterdir()):
        try:
            recorded = Path((root / WORKSPACE_FILE).read_text().strip())
        except OSError:
            continue  # made before paths were recorded, or not a shadow at all
        if recorded.exists() or pool_in_use(root / "pool"):
            continue
        shutil.rmtree(root, ignore_errors=True)
        removed.append(root)
    return removed
