"""`paicli verify SESSION`: check a recorded run against the engine's rules.
Exit 0 when every rule holds, 1 on a violation or an unknown session."""

from __future__ import annotations

import argparse
import json

from paicli_tui.commands.common import fail
from paicli_tui.records.sessions import SessionNotFound, resolve_session
from paicli_tui.records.verify import as_json, render, verify_ledger


def main(args: argparse.Namespace) -> int:
    try:
        path = resolve_session(args.session)
        result = verify_ledger(path)
    except SessionNotFound as exc:
        return fail(str(exc), 1)
    except OSError as exc:
        return fail(f"cannot read {args.session}: {exc}", 1)
    if getattr(args, "json", False):
        print(json.dumps(as_json(result), ensure_ascii=False))
    else:
        for line in render(result):
            print(line)
    return 0 if result.ok else 1
