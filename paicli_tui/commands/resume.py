"""`paicli resume [SESSION | --last] [--yes]`: go on with an interrupted
/plan or /team run without the full-screen UI.

The run keeps its approved plan, its completed work and what it spent;
tasks the interruption caught running start again from their base. Budget
flags replace the recorded limits (resume a budget stop with a larger
budget) and `--executor` the recorded place its tasks ran; everything else
is as the run was started. Exit codes as `run`."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from paicli_tui.commands.common import CommandError, fail, load_or_fail
from paicli_tui.records.resume_state import ResumeState, read_resume_state
from paicli_tui.session.shutdown import CANCEL_GRACE_S, QuietStream, SignalShutdown

#: Settings a resumed run takes from its record unless a flag says otherwise.
RECORDED = ("max_turns", "max_tokens", "max_seconds", "run_max_turns", "run_max_tokens", "run_max_seconds")


def describe(state: ResumeState) -> list[str]:
    """What resuming will do, for the person to read before saying yes."""
    stopped = time.strftime("%Y-%m-%d %H:%M", time.localtime(state.stopped_at)) if state.stopped_at else "?"
    lines = [f"{state.kind} run of session {state.session}: {state.goal}",
             f"  {state.progress}; stopped {stopped}: {state.stopped}"]
    if state.kept:
        lines.append(f"  kept (not run again): {', '.join(state.kept)}")
    if state.redone:
        lines.append(f"  run again from their base: {', '.join(state.redone)}")
    if state.turns:
        lines.append(f"  already spent: {state.tokens:,} tokens in {state.turns} model calls")
    if state.executor and state.executor != "local":
        lines.append(f"  its tasks ran on {state.executor}")
    return lines


def pick(args: argparse.Namespace, workspace: Path) -> ResumeState:
    from paicli_tui.records.resumable import newest_resumable
    from paicli_tui.records.sessions import SessionNotFound, resolve_session

    if args.session and args.last:
        raise CommandError("name a SESSION or use --last, not both")
    if args.session:
        try:
            path = resolve_session(args.session)
        except SessionNotFound as exc:
            raise CommandError(str(exc)) from None
        state = read_resume_state(path)
        if not state.resumable:
            raise CommandError(f"session {state.session} cannot be resumed: {state.why_not}", 1)
        return state
    state = newest_resumable(workspace)
    if state is None:
        raise CommandError(f"no interrupted /plan or /team run of {workspace} to resume (see `paicli sessions`)", 1)
    return state


def _confirmed(args: argparse.Namespace, out) -> bool:
    if args.yes:
        return True
    if not sys.stdin.isatty():
        raise CommandError("resume asks first: run it in a terminal, or add --yes")
    print("Resume this run? [y/N] ", end="", file=out, flush=True)
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def main(args: argparse.Namespace) -> int:
    from paicli_tui.records.killed import note_killed_runs

    raw = getattr(args, "workspace", None)
    workspace = (Path(raw).expanduser() if raw else Path.cwd()).resolve()
    note_killed_runs(workspace)
    try:
        state = pick(args, workspace)
    except CommandError as exc:
        return fail(str(exc), exc.code)
    if state.workspace and Path(state.workspace).resolve() != workspace and not args.session:
        return fail(f"session {state.session} worked in {state.workspace}, not {workspace}", 2)
    workspace = Path(state.workspace).resolve() if state.workspace else workspace
    if not workspace.is_dir():
        return fail(f"the run's workspace {workspace} is gone", 1)
    for name in RECORDED:
        if getattr(args, name, None) is None and state.limits.get(name) is not None:
            setattr(args, name, state.limits[name])
    if state.kind == "team" and state.workers:
        args.workers = len(state.workers)
    settings = load_or_fail(args)
    if isinstance(settings, int):
        return settings
    problem = settings.resolved().problem()
    if problem:
        return fail(problem, 2)
    settings = _where_it_ran(settings, args, state)
    out, err = QuietStream(sys.stdout), QuietStream(sys.stderr)
    for line in describe(state):
        print(line, file=err if args.json else out)
    try:
        if not _confirmed(args, err if args.json else out):
            print("not resumed", file=err)
            return 1
    except CommandError as exc:
        return fail(str(exc), exc.code)
    from paicli_tui.executors import ExecutorUnavailable, open_executor

    try:
        executor = open_executor(settings)
    except ExecutorUnavailable as exc:
        return fail(str(exc), 2)
    # An exit that cannot wait for the run still stops a Ray that paicli started.
    shutdown = SignalShutdown(CANCEL_GRACE_S, before_exit=executor.close).install()
    try:
        return _resume(args, settings, workspace, state, out, err, shutdown, executor)
    finally:
        shutdown.uninstall()
        executor.close()


def _where_it_ran(settings, args: argparse.Namespace, state: ResumeState):
    """The executor the run recorded, unless ``--executor``/``--ray-address``
    say otherwise (older ledgers record none: config.toml's then)."""
    from paicli_tui.commands.run import _with_executor_flags
    from paicli_tui.executors import recorded_choice

    if getattr(args, "executor", None) or getattr(args, "ray_address", None) or not state.executor:
        return _with_executor_flags(settings, args)
    kind, address = recorded_choice(state.executor)
    return settings.model_copy(update={"executor": settings.executor.model_copy(
        update={"kind": kind, "ray_address": address})})


def _resume(args, settings, workspace, state: ResumeState, out, err, shutdown: SignalShutdown, executor) -> int:
    from paicli_tui.commands.run import _approver, run_to_end
    from paicli_tui.session.live import Session
    from paicli_tui.session.port import ResumeRun

    session = Session(settings, workspace, approver=_approver(args), session_id=state.session, executor=executor)
    session.follow_recorded_executor = False  # _where_it_ran decided, flags included
    return run_to_end(session, ResumeRun(state), args, settings, out, err, shutdown)
