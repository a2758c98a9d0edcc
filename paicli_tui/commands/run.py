"""`paicli run`: one goal without the full-screen UI (P-8.2).

Exit codes: 0 when the answer is final / every task completed, 1 otherwise,
2 for bad configuration or usage, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import TimeoutError as FutureTimeout

from paicli_tui.commands.common import CommandError, fail, load_or_fail, workspace_from_args
from paicli_tui.headless import JsonPrinter, TextPrinter

CANCEL_GRACE_S = 10.0


def _approver(args: argparse.Namespace):
    from paicli_tui.tools.approval import AutoApprover, DenyApprover, TerminalApprover

    if args.yes:
        return AutoApprover()
    if sys.stdin.isatty():
        return TerminalApprover()
    return DenyApprover()


def _plan_from_file(path: str, prefix: str):
    from paicli_tui.plan.parser import PlanError, parse_plan

    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"cannot read plan file {path}: {exc}", 1) from None
    try:
        return parse_plan(text, id_prefix=prefix)
    except PlanError as exc:
        raise CommandError(f"{path}: {exc}", 1) from None


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
    try:
        workspace = workspace_from_args(args)
        plan = _plan_from_file(plan_file, "step" if args.mode == "team" else "task") if plan_file else None
    except CommandError as exc:
        return fail(str(exc), exc.code)

    from paicli_tui.plan.review import LineReviewer
    from paicli_tui.session import Session

    reviewer = None
    if not args.yes and args.mode in ("plan", "team"):
        reviewer = LineReviewer(sys.stdin, sys.stderr if args.json else sys.stdout)
    session = Session(settings, workspace, approver=_approver(args), plan_reviewer=reviewer)
    printer = JsonPrinter() if args.json else TextPrinter()
    session.bus.subscribe(printer)
    try:
        if args.mode == "plan":
            future = session.start_plan(goal, plan)
        elif args.mode == "team":
            future = session.start_team(goal, plan)
        else:
            future = session.start_react(goal)
        outcome = _wait(future, session)
    finally:
        session.close()
    if outcome is None:
        print(f"interrupted; run record: {session.ledger.path}", file=sys.stderr)
        return 130
    if isinstance(printer, JsonPrinter):
        from paicli_tui.records.report import final_report

        printer.final(final_report(session.ledger.path, outcome, settings.prices))
    elif not outcome.ok:
        # One line on why the exit code is 1; a run's summary is on stdout already.
        lines = outcome.text.strip().splitlines()
        print(f"paicli: {outcome.kind} {outcome.status}" + (f": {lines[0]}" if lines else ""), file=sys.stderr)
    return 0 if outcome.ok else 1


def _wait(future, session):
    """Wait for the job; on Ctrl+C cancel it and give it a moment to stop."""
    try:
        while True:
            try:
                return future.result(timeout=0.2)
            except FutureTimeout:
                continue
    except KeyboardInterrupt:
        session.cancel()
        deadline = time.monotonic() + CANCEL_GRACE_S
        while time.monotonic() < deadline:
            try:
                future.result(timeout=0.2)
                break
            except FutureTimeout:
                continue
            except KeyboardInterrupt:
                break
        return None
