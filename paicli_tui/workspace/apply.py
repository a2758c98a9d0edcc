"""The end of a run: the integration result reaches the workspace.

``tree`` writes the run's changes into the workspace, three-way merged with
whatever the person changed there during the run (their snapshot's parent
is the run's start, so git takes the start as the merge base); a file both
changed in conflicting ways keeps the person's version and is reported.
The changes are written merge by merge, each inside a checkpoint recording
named for its task, so undo can revert the whole run or one task.
``branch`` leaves the result as ``paicli/<run>`` in a git workspace without
touching the files; ``none`` only keeps the shadow's refs."""

from __future__ import annotations

import os
import stat
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, ContextManager, Mapping

from paicli_tui.events import RunApplied
from paicli_tui.workspace.git import Git
from paicli_tui.workspace.merge import OURS, THEIRS, ConflictFile, MergeOutcome, merge, resolve
from paicli_tui.workspace.run import IsolatedRun
from paicli_tui.workspace.snapshot import snapshot, tree_of

APPLY_MODES = ("tree", "branch", "none")
#: Called with the workspace-relative paths about to change and the task
#: whose merge changes them; the context checkpoints them (the session
#: passes its checkpoint recorder's).
Recording = Callable[[list[str], str], ContextManager]
#: Asked once about the files the person edited during the run that the
#: run's result conflicts with: per path "ours" (the person's), "theirs"
#: (the run's) or the file's new bytes. A path left out keeps the person's.
Decide = Callable[[MergeOutcome], Mapping[str, str | bytes | None]]


@dataclass(frozen=True)
class ApplyReport:
    mode: str
    final: str
    written: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    #: Files the person edited during the run that the run's change conflicted with: theirs was kept.
    kept: tuple[ConflictFile, ...] = ()
    #: Such files settled otherwise: (path, "run" | "edited" | "both").
    settled: tuple[tuple[str, str], ...] = ()
    branch: str = ""
    notes: tuple[str, ...] = field(default=())


def apply_run(run: IsolatedRun, mode: str = "tree", *, recording: Recording | None = None,
              decide: Decide | None = None) -> ApplyReport:
    if mode not in APPLY_MODES:
        raise ValueError(f"unknown apply mode {mode!r}; expected one of: {', '.join(APPLY_MODES)}")
    run.flush_refs()  # a ref that failed to be written fails the apply here, before any file changes
    final = run.head
    if mode == "branch" and run.repo.person is None:
        mode, note = "none", ("the workspace is not a git repository: the result stays in paicli's shadow repository",)
    else:
        note = ()
    if mode == "none" or final == run.start:
        report = ApplyReport(mode, final, notes=note)
    elif mode == "branch":
        report = _branch(run, final)
    else:
        report = _tree(run, final, recording, decide)
    run._publish(RunApplied("isolation", run.run_id, report.mode, run.start, final,
                            report.written + report.removed, tuple(c.path for c in report.kept), report.branch))
    return report


def _branch(run: IsolatedRun, final: str) -> ApplyReport:
    branch = f"paicli/{run.run_id}"
    Git(cwd=run.repo.workspace).run("fetch", "-q", "--no-tags", str(run.repo.git_dir),
                                    f"+{run.integration_ref}:refs/heads/{branch}")
    return ApplyReport("branch", final, branch=branch)


def _tree(run: IsolatedRun, final: str, recording: Recording | None, decide: Decide | None) -> ApplyReport:
    repo = run.repo
    now = snapshot(repo, parent=run.start, message=f"paicli {run.run_id}: workspace at the end")
    edited = tree_of(repo, now) != tree_of(repo, run.start)
    steps = run.merges if run.merges and run.merges[-1][1] == final else [("run", final)]
    conflicts: tuple[ConflictFile, ...] = ()
    choices: dict[str, str | bytes | None] = {}
    if edited:
        # Asked once, on the whole result; each merge step below reuses the answer.
        last = merge(repo, now, final, ours_label="workspace", theirs_label="run")
        conflicts = last.conflicts
        if conflicts and decide is not None:
            choices = dict(decide(last))
    previous = tree_of(repo, now)
    written: list[str] = []
    removed: list[str] = []
    for task_id, merge_commit in steps:
        target = tree_of(repo, merge_commit)
        if edited:
            outcome = merge(repo, now, merge_commit, ours_label="workspace", theirs_label="run")
            target = resolve(repo, outcome, {p: choices.get(p, OURS) for p in outcome.paths}) \
                if outcome.conflicts else outcome.tree
        _write_step(run, previous, target, task_id, recording, written, removed)
        previous = target
    kept = tuple(c for c in conflicts if choices.get(c.path, OURS) == OURS)
    settled = tuple((c.path, _how(c, choices[c.path])) for c in conflicts if choices.get(c.path, OURS) != OURS)
    return ApplyReport("tree", final, tuple(dict.fromkeys(written)), tuple(dict.fromkeys(removed)), kept, settled)


def _how(conflict: ConflictFile, choice: str | bytes | None) -> str:
    if choice == THEIRS or choice is None:
        return "run"
    return "both" if conflict.marked and choice == conflict.marked.encode() else "edited"


def _write_step(run: IsolatedRun, old: str, new: str, task_id: str, recording: Recording | None,
                written: list[str], removed: list[str]) -> None:
    """Make the workspace's files that differ between trees ``old`` and ``new`` match ``new``."""
    repo = run.repo
    out = repo.git().run_bytes("diff-tree", "-r", "-z", "--no-renames", old, new)[1]
    fields = out.decode(errors="surrogateescape").split("\0")
    changes = [(fields[i].split()[1], fields[i].split()[3], fields[i].split()[4], fields[i + 1])
               for i in range(0, len(fields) - 1, 2) if fields[i].startswith(":")]
    if not changes:
        return
    with (recording([path for *_, path in changes], task_id) if recording is not None else nullcontext()):
        for mode, oid, status, path in changes:
            target_path = repo.workspace / path
            if status == "D":
                target_path.unlink(missing_ok=True)
                removed.append(path)
            elif mode in ("100644", "100755"):  # symlinks and submodules are left to the person
                data = repo.git().run_bytes("cat-file", "blob", oid)[1]
                _write(target_path, data, executable=mode == "100755")
                written.append(path)


def _write(path: Path, data: bytes, executable: bool) -> None:
    """Replace ``path`` atomically (a reader never sees half a file), keeping
    the permissions an existing file had; git only knows the executable bit."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = 0o644
    readable_x = (mode & 0o444) >> 2
    mode = mode | readable_x if executable else mode & ~0o111
    temporary = path.with_name(f".{path.name}.paicli-apply")
    temporary.write_bytes(data)
    os.chmod(temporary, mode)
    os.replace(temporary, path)
