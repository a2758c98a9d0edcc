"""`paicli run`: one goal without the full-screen UI (P-8.2).

Exit codes: 0 when the answer is final / every task completed, 1 otherwise,
2 for bad configuration or usage, 130 when interrupted (Ctrl+C), 143 on
SIGTERM and 129 on SIGHUP (128 + the signal number).

SIGTERM and SIGHUP (``timeout``, ``docker stop``, a closed terminal) cancel
the run as Esc does: the ledger gets ``run_cancelled`` and ``run_outcome``,
every command process group is killed. A second signal, or the run not
stopping within CANCEL_GRACE_S, exits at once (the groups still killed).
Output to a terminal or pipe that went away is dropped, not a traceback.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

from paicli_tui.commands.common import CommandError, fail, load_or_fail, workspace_from_args
from paicli_tui.present.headless import JsonPrinter, TextPrinter
from paicli_tui.session.shutdown import CANCEL_GRACE_S, QuietStream, SignalShutdown


def _approver(args: argparse.Namespace):
    from paicli_tui.policy.approval import AutoApprover, DenyApprover, TerminalApprover

    if args.yes:
        return AutoApprover()
    if sys.stdin.isatty():
        return TerminalApprover()
    return DenyApprover()


def _plan_from_file(path: str, prefix: str):
    from paicli_tui.plan.files import PlanFileError, load_plan_file

    try:
        return load_plan_file(Path(path), prefix)
    except PlanFileError as exc:
        raise CommandError(str(exc), 1) from None


def _mode_for(asked: str | None, plan_file: str | None) -> str:
    """The run's mode: as asked, else the one a plan file was saved from (a
    team plan lists ``steps``, a /plan plan ``tasks``), else react."""
    if plan_file is None:
        return asked or "react"
    if asked == "react":
        raise CommandError("--plan-file runs a saved plan: use it with --mode plan or --mode team, or leave --mode out", 2)
    if asked is not None:
        return asked
    from paicli_tui.plan.files import plan_file_kind

    return plan_file_kind(Path(plan_file))


def main(args: argparse.Namespace) -> int:
    settings = load_or_fail(args)
    if isinstance(settings, int):
        return settings
    goal = " ".join(args.goal).strip()
    plan_file = getattr(args, "plan_file", None)
    if not goal and not plan_file:
        return fail("run needs a GOAL (e.g. paicli run --mode plan \"add tests\")", 2)
    problem = settings.resolved().problem()
    if problem:
        return fail(problem, 2)
    settings = _with_executor_flags(settings, args)
    try:
        workspace = workspace_from_args(args)
        args.mode = _mode_for(args.mode, plan_file)
        plan = _plan_from_file(plan_file, "step" if args.mode == "team" else "task") if plan_file else None
    except CommandError as exc:
        return fail(str(exc), exc.code)

    from paicli_tui.executors import ExecutorUnavailable, open_executor

    try:
        executor = open_executor(settings) if args.mode in ("plan", "team") else None
    except ExecutorUnavailable as exc:
        return fail(str(exc), 2)
    out, err = QuietStream(sys.stdout), QuietStream(sys.stderr)
    # An exit that cannot wait for the run still stops a Ray that paicli started.
    shutdown = SignalShutdown(CANCEL_GRACE_S, before_exit=executor.close if executor is not None else None).install()
    try:
        return _run(args, settings, workspace, goal, plan, out, err, shutdown, executor)
    finally:
        shutdown.uninstall()
        if executor is not None:
            executor.close()


def _with_executor_flags(settings, args: argparse.Namespace):
    """``--executor`` and ``--ray-address`` over ``[executor]`` in config.toml."""
    kind, address = getattr(args, "executor", None), getattr(args, "ray_address", None)
    if kind is None and address is None:
        return settings
    chosen = settings.executor.model_copy(update={k: v for k, v in (("kind", kind), ("ray_address", address)) if v})
    return settings.model_copy(update={"executor": chosen})


def _run(args, settings, workspace, goal, plan, out, err, shutdown: SignalShutdown, executor=None) -> int:
    from paicli_tui.plan.review import LineReviewer
    from paicli_tui.session.live import Session
    from paicli_tui.session.port import AgentTurn, PlanRun, TeamRun

    reviewer = None
    if not args.yes and args.mode in ("plan", "team"):
        reviewer = LineReviewer(sys.stdin, err if args.json else out)
    session = Session(settings, workspace, approver=_approver(args), plan_reviewer=reviewer,
                      trust_workspace_mcp=getattr(args, "trust_mcp", False),
                      trust_workspace_hooks=getattr(args, "trust_hooks", False), executor=executor)
    command = {"plan": PlanRun, "team": TeamRun}[args.mode](goal, plan) if args.mode in ("plan", "team") \
        else AgentTurn(goal)
    return run_to_end(session, command, args, settings, out, err, shutdown)


def run_to_end(session, command, args, settings, out, err, shutdown: SignalShutdown) -> int:
    """Print the session's events while ``command`` runs (unless a signal
    came first), close the session, and say how it ended: the exit code."""
    for warning in session.warnings:
        print(f"paicli: {warning}", file=err)
    printer = JsonPrinter(out) if args.json else TextPrinter(out, err)
    session.bus.subscribe(printer)
    outcome = None
    try:
        if shutdown.signum is None:
            outcome = _wait(session.submit(command), session, shutdown)
    finally:
        session.close(CANCEL_GRACE_S, reason=shutdown.reason if shutdown.signum else "cancelled by the user")
    if outcome is not None and isinstance(printer, JsonPrinter):
        from paicli_tui.records.report import final_report

        printer.final(final_report(session.ledger.path, outcome, settings.prices))
    if shutdown.signum is not None:
        print(f"stopped: {shutdown.reason}; run record: {session.ledger.path}", file=err)
        return shutdown.exit_code
    if outcome is None:
        print(f"cancelled (interrupted); run record: {session.ledger.path}", file=err)
        return 130
    if not outcome.ok and not isinstance(printer, JsonPrinter):
        # One line on why the exit code is 1; a run's summary is on stdout already.
        lines = outcome.text.strip().splitlines()
        if outcome.status.lower() == "cancelled":
            detail = lines[0] if lines and lines[0] != "cancelled" else ""
            print("paicli: cancelled" + (f": {detail}" if detail else ""), file=err)
        else:
            evidence = f" ({lines[1]})" if outcome.status == "PARTIAL" and len(lines) > 1 else ""
            print(f"paicli: {outcome.kind} {outcome.status}" + (f": {lines[0]}{evidence}" if lines else ""), file=err)
    return 0 if outcome.ok else 1


def _wait(future, session, shutdown: SignalShutdown):
    """Wait for the job. On SIGTERM/SIGHUP cancel it and give it a moment
    to stop (its cancelled outcome is returned when it does, None if not);
    on Ctrl+C the same, and None."""
    try:
        while True:
            if shutdown.signum is not None:
                # Cancelled here, not in the handler: publishing takes locks.
                session.cancel(shutdown.reason)
                return _result_within(future, CANCEL_GRACE_S)
            try:
                return future.result(timeout=0.2)
            except FutureTimeout:
                continue
    except KeyboardInterrupt:
        session.cancel()
        try:
            _result_within(future, CANCEL_GRACE_S)
        except KeyboardInterrupt:
            pass
        return None


def _result_within(future, seconds: float):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            return future.result(timeout=0.2)
        except FutureTimeout:
            continue
    return None
