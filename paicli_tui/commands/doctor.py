"""`paicli doctor`: what this machine and the configured model server
give paicli — whether commands run in the OS sandbox, and what the model
server is and offers. ``--only`` picks one part; ``--json`` prints the
server's description as one JSON object. Exit 1 when either part has a
problem: commands that would run unconfined or be refused, or a server
that cannot be reached."""

from __future__ import annotations

import argparse

from paicli_tui.commands.common import load_or_fail
from paicli_tui.commands.doctor_sandbox import sandbox_report
from paicli_tui.commands.doctor_server import server_report


def main(args: argparse.Namespace) -> int:
    settings = load_or_fail(args)
    if isinstance(settings, int):
        return settings
    only = getattr(args, "only", None) or ("server" if args.json else None)
    code = 0
    if only in (None, "sandbox"):
        code |= sandbox_report(args, settings)
    if only in (None, "server"):
        code |= server_report(args, settings)
    return code
