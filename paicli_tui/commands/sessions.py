"""`paicli sessions [--all] [--json]`: past runs, newest session first, one
row per run under its session. Launches of the app that ran nothing are
left out unless ``--all``."""

from __future__ import annotations

import argparse
import json
import sys

from paicli_tui.records.sessions import RunSummary, SessionSummary, list_sessions

_GOAL_CHARS = 60
#: Marks a run `paicli resume` can go on with.
RESUMABLE = "↻"


def _cut(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _outcome(run) -> str:
    return f"{run.outcome} {RESUMABLE}" if run.resumable else run.outcome


def token_cell(row: "SessionSummary | RunSummary") -> str:
    """``1,234``; ``≈1,234`` when paicli counted some calls itself (the
    server sent no usage); ``unknown (N calls without usage)`` when nobody
    counted them; never a 0 that was not measured."""
    uncounted = row.uncounted_calls
    if uncounted and uncounted == row.calls:
        return f"unknown ({uncounted} call{'s' if uncounted != 1 else ''} without usage)"
    text = ("≈" if row.estimated_calls else "") + f"{row.tokens:,}"
    return text + (f" +{uncounted} without usage" if uncounted else "")


def _rows(sessions: list[SessionSummary]) -> list[tuple[str, ...]]:
    """A session of one run is one row; a session of several (the app) is a
    row of its own with each run indented under it."""
    rows: list[tuple[str, ...]] = [("SESSION", "TIME", "MODE", "OUTCOME", "TOKENS", "GOAL")]
    for s in sessions:
        if len(s.runs) == 1:
            (run,) = s.runs
            rows.append((s.session, s.when, run.kind, _outcome(run), token_cell(run), _cut(run.goal, _GOAL_CHARS)))
            continue
        rows.append((s.session, s.when, "", "", token_cell(s), f"{len(s.runs)} runs" if s.runs else "(no run)"))
        for run in s.runs:
            same_day = run.when[:10] == s.when[:10]
            rows.append((f"  run {run.index}", run.when[11:] if same_day else run.when, run.kind, _outcome(run),
                         token_cell(run), _cut(run.goal, _GOAL_CHARS)))
    return rows


def main(args: argparse.Namespace) -> int:
    every = list_sessions()
    shown = every if getattr(args, "all", False) else [s for s in every if s.runs]
    hidden = len(every) - len(shown)
    if getattr(args, "json", False):
        print(json.dumps([s.to_dict() for s in shown], ensure_ascii=False))
        return 0
    if not shown:
        print("no past runs yet" + (f" ({hidden} launch{'es' if hidden != 1 else ''} with no run: --all shows them)"
                                    if hidden else ""), file=sys.stderr)
        return 0
    rows = _rows(shown)
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        cells = [cell.rjust(widths[i]) if i == 4 else cell.ljust(widths[i]) for i, cell in enumerate(row[:5])]
        print(("  ".join(cells) + "  " + row[5]).rstrip())
    if any(run.resumable for s in shown for run in s.runs):
        print(f"{RESUMABLE}: interrupted; `paicli resume SESSION` goes on with it (completed work is kept)",
              file=sys.stderr)
    if hidden:
        print(f"({hidden} launch{'es' if hidden != 1 else ''} of the app with no run hidden: --all shows them)",
              file=sys.stderr)
    return 0
