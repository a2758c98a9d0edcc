"""Starting and ending a run's isolation, as the session does it: where the
shadow lives, what turns isolation off, and the one warning a person sees
when it cannot be used."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from paicli_tui.checkpoints.store import workspace_key
from paicli_tui.config.paths import data_dir
from paicli_tui.workspace.git import GitError, IsolationUnavailable, require_version
from paicli_tui.workspace.run import IsolatedRun
from paicli_tui.workspace.shadow import WORKSPACE_FILE, ShadowRepo
from paicli_tui.workspace.snapshot import snapshot
from paicli_tui.workspace.trees import TaskTrees, pool_in_use

if TYPE_CHECKING:
    from paicli_tui.config.settings import Settings
    from paicli_tui.events import EventBus


def isolation_root(workspace: Path) -> Path:
    return data_dir() / "isolation" / workspace_key(workspace)


class PreparedTrees:
    """A run's task trees readied in the background while its plan is made
    (and reviewed): leased from the pool, or checked out cold when the pool
    has too few, at a snapshot of the workspace as it is now. The run's
    start snapshot then differs by little, and moving a readied tree there
    touches only those files."""

    def __init__(self, workspace: Path, slots: list[str]) -> None:
        self._opened = threading.Event()
        self.trees: TaskTrees | None = None
        self.thread = threading.Thread(target=self._prepare, args=(workspace, slots), name="paicli-prepare-trees",
                                       daemon=True)
        self.thread.start()

    def _prepare(self, workspace: Path, slots: list[str]) -> None:
        try:
            require_version()
            root = isolation_root(workspace)
            repo = ShadowRepo.open(workspace, root)
            self.trees = TaskTrees(repo, root / "pool")
        except (IsolationUnavailable, GitError, OSError):
            return  # the run's own start says why, once
        finally:
            self._opened.set()
        try:
            self.trees.warm(slots, snapshot(repo, message="paicli: workspace while planning")).join()
        except (GitError, OSError):
            return  # the run readies its trees itself

    def take(self) -> TaskTrees | None:
        """The trees, once their repository is open (a fraction of a second)."""
        self._opened.wait()
        return self.trees

    def close(self) -> None:
        """Not used: give the trees back to the pool."""
        trees = self.take()
        if trees is not None:
            trees.close()


def prepare_trees(workspace: Path, settings: "Settings", slots: list[str]) -> PreparedTrees | None:
    return None if settings.isolation == "off" else PreparedTrees(workspace, slots)


def begin_isolation(
    workspace: Path, run_id: str, settings: "Settings", bus: "EventBus | None", slots: list[str],
    prepared: PreparedTrees | None = None,
) -> tuple[IsolatedRun | None, str]:
    """The run's isolation, or None and why not (one line for the person;
    empty when it is switched off on purpose). The slots' trees are readied
    in the background at once (``prepared`` ones may be there already): a
    cold tree is the slowest step of a run's start."""
    if settings.isolation == "off":
        if prepared is not None:
            prepared.close()
        return None, ""
    sweep_gone_workspaces(data_dir() / "isolation")
    trees = prepared.take() if prepared is not None else None
    try:
        run = IsolatedRun.begin_run(workspace, run_id, isolation_root(workspace), bus=bus, warm=slots, trees=trees)
    except (IsolationUnavailable, GitError, OSError) as exc:
        if trees is not None:
            trees.close()
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
