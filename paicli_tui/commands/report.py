"""`paicli report SESSION [--json | --markdown]`: each run of a past session
as a table with totals, the schedule, a timeline and every task's result;
``--json`` one JSON object per run and line (a `paicli run` session has
exactly one), ``--markdown`` the table as a Markdown document. The text and
Markdown forms add each isolated task's diff (bounded), read from the
workspace's shadow repository; the JSON keeps the commit ids only."""

from __future__ import annotations

import argparse
import json
import sys

from paicli_tui.commands.common import fail
from paicli_tui.config.paths import ConfigError
from paicli_tui.config.loading import load_settings
from pathlib import Path

from paicli_tui.records.report import session_reports, session_workspace
from paicli_tui.present.report_text import render_markdown, render_text
from paicli_tui.records.sessions import SessionNotFound, resolve_session


def configured_prices() -> dict:
    """Prices from the settings, for runs that recorded none."""
    try:
        return {name: price.model_dump() for name, price in load_settings().prices.items()}
    except ConfigError:
        return {}


def add_diffs(reports: list[dict], workspace: str) -> None:
    """Each task's diff against its base, from the session's shadow
    repository (nothing when the shadow or its commits are gone)."""
    if not workspace:
        return
    from paicli_tui.workspace.receipts import task_diff

    for report in reports:
        for task in report.get("tasks", []):
            base, result = task.get("base_commit"), task.get("result_commit")
            if base and result and base != result:
                diff = task_diff(Path(workspace), base, result)
                if diff:
                    task["diff"] = diff


def main(args: argparse.Namespace) -> int:
    warnings: list[str] = []
    try:
        path = resolve_session(args.session)
        reports = session_reports(path, configured_prices(), warnings)
    except SessionNotFound as exc:
        return fail(str(exc), 1)
    except OSError as exc:
        return fail(f"cannot read {args.session}: {exc}", 1)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if not reports:
        return fail(f"{path}: no run recorded in this ledger", 1)
    if not getattr(args, "json", False):
        add_diffs(reports, session_workspace(path))
    if getattr(args, "json", False):
        for report in reports:
            print(json.dumps(report, ensure_ascii=False, default=str))
    elif getattr(args, "markdown", False):
        sys.stdout.write(render_markdown(reports))
    else:
        for line in render_text(reports):
            print(line)
    return 0
