"""`paicli undo [RUN] [--list] [--task ID] [--yes] [--overwrite]`: /undo on the
command line (P-9.3). Without --yes it only shows what reverting would do;
files changed since by someone else are kept unless --overwrite is given."""

from __future__ import annotations

import argparse
import sys
import time

from paicli_tui.checkpoints.revert import RevertPlan, run_label
from paicli_tui.checkpoints.service import Checkpoints
from paicli_tui.commands.common import CommandError, fail, workspace_from_args
from paicli_tui.records.ledger import new_session_id

_LABEL_CHARS = 50
#: Exit codes: 0 done (or nothing to do), 1 some file kept or not restored.
EXIT_INCOMPLETE = 1


def main(args: argparse.Namespace) -> int:
    try:
        workspace = workspace_from_args(args)
    except CommandError as exc:
        return fail(str(exc), exc.code)
    checkpoints = Checkpoints(workspace, new_session_id())
    if args.list:
        return _list(checkpoints)
    try:
        plan = _plan(checkpoints, args.run, args.task or "")
    except CommandError as exc:
        return fail(str(exc), exc.code)
    if plan is None:
        print("nothing to undo: no tool has changed a file in this workspace (or it was undone already)",
              file=sys.stderr)
        return 0
    _show(checkpoints, plan)
    if plan.empty:
        print("nothing left to undo in this run")
        return 0
    if not args.yes:
        print("\nnothing changed yet: run again with --yes to revert"
              + (" (--overwrite also reverts files changed since)" if plan.conflicts else ""))
        return 0
    overwrite = [f.path for f in plan.conflicts] if args.overwrite else []
    result = checkpoints.undo(plan, overwrite)
    print(f"\n↶ {result.summary()}")
    return EXIT_INCOMPLETE if result.skipped or result.failed else 0


def _list(checkpoints: Checkpoints) -> int:
    runs = checkpoints.runs()
    if not runs:
        print("nothing to undo: no tool has changed a file in this workspace", file=sys.stderr)
        return 0
    rows = [("#", "RUN", "TIME", "FILES", "STATE", "WHAT")]
    for number, run in enumerate(runs, 1):
        files, pending = len(run.files), len({c.path for c in run.pending})
        state = "commands only" if not files else "undone" if not pending else (
            f"{pending}/{files} left" if pending < files else "can undo")
        if run.commands:
            state += " · ran commands"
        label = run_label(run)
        label = label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 1] + "…"
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(run.started))
        rows.append((str(number), run.run_id, when, str(files), state, label))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:5])) + "  " + row[5])
    return 0


def _plan(checkpoints: Checkpoints, chosen: str | None, task: str) -> RevertPlan | None:
    """The run named by id or by its number in --list; default the newest
    run with changes not undone yet."""
    if chosen is None:
        if task:
            raise CommandError("--task needs a RUN (see paicli undo --list)")
        return checkpoints.plan()
    runs = checkpoints.runs()
    run = next((r for r in runs if r.run_id == chosen), None)
    if run is None and chosen.isdigit() and 1 <= int(chosen) <= len(runs):
        run = runs[int(chosen) - 1]
    if run is None:
        raise CommandError(f"no run {chosen!r} in this workspace's checkpoints; paicli undo --list shows them")
    return checkpoints.plan(run.run_id, task)


def _show(checkpoints: Checkpoints, plan: RevertPlan) -> None:
    print(f"undo {plan.title()}  ({plan.run.run_id})")
    if plan.commands:
        print(f"⚙ commands ran here ({', '.join(plan.commands)}): what they changed is not tracked and will not "
              "be reverted")
    for item in plan.files:
        marks = {"ok": "↶", "done": "·", "changed": "⚠", "lost": "✗"}
        note = {"ok": "restore", "done": "already as it was"}.get(item.status, item.conflict)
        print(f"{marks.get(item.status, '?')} {item.path}  {note}")
    for item in plan.files:
        if item.status in ("ok", "changed"):
            print()
            print(checkpoints.diff(plan, item.path).rstrip("\n"))
