"""`paicli sessions [--json]`: past runs, newest first."""

from __future__ import annotations

import argparse
import json
import sys

from paicli_tui.records.sessions import list_sessions

_GOAL_CHARS = 60


def _cut(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def main(args: argparse.Namespace) -> int:
    sessions = list_sessions()
    if getattr(args, "json", False):
        print(json.dumps([s.to_dict() for s in sessions], ensure_ascii=False))
        return 0
    if not sessions:
        print("no past runs yet", file=sys.stderr)
        return 0
    rows = [("SESSION", "TIME", "MODE", "OUTCOME", "TOKENS", "GOAL")]
    rows += [(s.session, s.when, s.mode, s.outcome, str(s.tokens), _cut(s.goal, _GOAL_CHARS)) for s in sessions]
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:5])) + "  " + row[5])
    return 0
