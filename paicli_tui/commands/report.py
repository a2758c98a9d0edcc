"""`paicli report SESSION [--json | --markdown]`: each run of a past session
as a table with totals, the schedule, a timeline and every task's result;
``--json`` one JSON object per run and line (a `paicli run` session has
exactly one), ``--markdown`` the table as a Markdown document."""

from __future__ import annotations

import argparse
import json
import sys

from paicli_tui.commands.common import fail
from paicli_tui.config.settings import ConfigError, load_settings
from paicli_tui.records.report import session_reports
from paicli_tui.present.report_text import render_markdown, render_text
from paicli_tui.records.sessions import SessionNotFound, resolve_session


def configured_prices() -> dict:
    """Prices from the settings, for runs that recorded none."""
    try:
        return {name: price.model_dump() for name, price in load_settings().prices.items()}
    except ConfigError:
        return {}


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
    if getattr(args, "json", False):
        for report in reports:
            print(json.dumps(report, ensure_ascii=False, default=str))
    elif getattr(args, "markdown", False):
        sys.stdout.write(render_markdown(reports))
    else:
        for line in render_text(reports):
            print(line)
    return 0
