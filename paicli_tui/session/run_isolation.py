"""A /plan or /team run's isolation as the live session drives it: begun
with the run, handed to the task runners, applied to the workspace as part
of the run's checkpoint (so undo reverts it), and closed whatever happened."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from paicli_tui.events import AgentNote
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext
from paicli_tui.tools.trusted_urls import TrustedUrls
from paicli_tui.workspace.apply import ApplyReport, apply_run
from paicli_tui.workspace.git import GitError
from paicli_tui.workspace.lifecycle import PreparedTrees, begin_isolation, prepare_trees, swept_note
from paicli_tui.workspace.merge import OURS, MergeOutcome
from paicli_tui.workspace.resolver import APPLY, Conflict, ConflictResolver, HeadlessResolver, TaskIsolation

if TYPE_CHECKING:
    from pathlib import Path

    from paicli_tui.checkpoints.service import CheckpointService
    from paicli_tui.config.settings import Settings
    from paicli_tui.events import EventBus


class RunIsolation:
    def __init__(self, workspace: "Path", settings: "Settings", bus: "EventBus",
                 checkpoints: "CheckpointService") -> None:
        self.workspace = workspace
        self.settings = settings
        self.bus = bus
        self.checkpoints = checkpoints
        #: Who settles a merge conflict: the run screen in the TUI, else --on-conflict.
        self.resolver: ConflictResolver = HeadlessResolver(settings.on_conflict)
        self.current: TaskIsolation | None = None
        self._prepared: PreparedTrees | None = None

    def prepare(self, slots: list[str]) -> None:
        """Ready the task trees in the background while the plan is made."""
        self._release_prepared()
        self._prepared = prepare_trees(self.workspace, self.settings, slots)

    def begin(self, run_id: str, slots: list[str]) -> TaskIsolation | None:
        prepared, self._prepared = self._prepared, None
        run, why = begin_isolation(self.workspace, _ref_safe(run_id), self.settings, self.bus, slots, prepared)
        if why:
            self.bus.publish(AgentNote("session", why))
        if run is None:
            return None
        note = swept_note(run)
        if note:
            self.bus.publish(AgentNote("session", note))
        self.current = TaskIsolation(run, self.resolver)
        return self.current

    def finish(self) -> str:
        """Apply the run's result (``settings.apply``) and close its trees;
        returns a line for the run's outcome ("" when nothing to say)."""
        current, self.current = self.current, None
        if current is None:
            return ""
        try:
            report = apply_run(current.run, self.settings.apply, recording=self._recording,
                               decide=self._decide_apply)
        except (GitError, OSError) as exc:
            return f"the run's result could not be applied ({exc}); it is kept as {current.run.integration_ref}"
        finally:
            current.run.close()
        return describe(report)

    def close(self) -> None:
        """A run that raised or was never begun: give its trees back to the pool, apply nothing."""
        self._release_prepared()
        current, self.current = self.current, None
        if current is not None:
            current.run.close()

    def _release_prepared(self) -> None:
        prepared, self._prepared = self._prepared, None
        if prepared is not None:
            prepared.close()

    def _decide_apply(self, outcome: MergeOutcome) -> dict[str, str | bytes | None]:
        """The person's files the run's result conflicts with, settled by the
        same resolver as a task's conflict (the run screen's dialog, or keep
        the person's files headless)."""
        conflict = Conflict("run", "the run's result, onto your edits made during the run", None, outcome,
                            stage=APPLY)
        decision = self.resolver.decide(conflict, threading.Event())
        if decision.choice != "resolve":
            return {path: OURS for path in outcome.paths}
        return dict(decision.files)

    def _recording(self, paths: list[str], task_id: str):
        ctx = ToolContext(task_id, threading.Event(), TrustedUrls(), AutoApprover(), bus=self.bus)
        return self.checkpoints.recorder.recording("apply", paths, ctx)


def describe(report: ApplyReport) -> str:
    if report.mode == "branch":
        return f"the run's result is on branch {report.branch}; your files were not changed"
    lines = []
    if report.mode == "tree" and (report.written or report.removed):
        count = len(report.written) + len(report.removed)
        lines.append(f"applied the run's changes to {count} file{'s' if count != 1 else ''}")
    if report.kept:
        lines.append("kept your own edits to " + ", ".join(c.path for c in report.kept)
                     + " (the run changed the same lines)")
    words = {"run": "took the run's version of", "edited": "wrote your edited", "both": "kept both sides, with "
             "conflict markers, in"}
    for how in ("run", "edited", "both"):
        paths = [path for path, settled in report.settled if settled == how]
        if paths:
            lines.append(f"{words[how]} {', '.join(paths)}")
    lines.extend(report.notes)
    return "; ".join(lines)


def _ref_safe(run_id: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in run_id).strip(".-") or "run"
