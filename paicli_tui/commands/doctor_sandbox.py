"""`paicli doctor`'s sandbox lines: whether commands run in the OS sandbox
here, and if not, why; what it hides and whether it lets the network
through. 0 when commands will run confined (or the person turned the
sandbox off), 1 when they would run unconfined or be refused."""

from __future__ import annotations

import argparse
import subprocess

from paicli_tui.commands.common import CommandError, fail, workspace_from_args
from paicli_tui.config.permission_rules import NETWORK_KINDS, parse_permission_rule


def sandbox_report(args: argparse.Namespace, settings) -> int:
    from paicli_tui.sandbox.os_sandbox import sandbox_for

    try:
        workspace = workspace_from_args(args)
    except CommandError as exc:
        return fail(str(exc), exc.code)
    sandbox = sandbox_for(settings, workspace)
    print(f"sandbox setting: {settings.sandbox}")
    if sandbox.active:
        print(f"sandbox: on ({sandbox.describe()})")
        print(f"bubblewrap: {sandbox.binary} ({_version(sandbox.binary)})")
    else:
        print(f"sandbox: OFF: {sandbox.describe()}")
    hidden = list(dict.fromkeys(str(p) for p in sandbox.profile.hidden if p.exists() or p.is_symlink()))
    print("hidden from commands: " + (", ".join(hidden) if hidden else "nothing found to hide"))
    print("writable besides the workspace: " + (", ".join(map(str, sandbox.profile.writable)) or "nothing"))
    rules = [r for r in settings.permissions.allow if parse_permission_rule(r).kind in NETWORK_KINDS]
    allowed = "; ".join(rules) or "none (asked in ask mode)"
    print(f"network: {'on' if sandbox.network_default else 'off'}; network rules: {allowed}")
    return 0 if sandbox.active or settings.sandbox == "off" else 1


def _version(binary: str) -> str:
    try:
        done = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"version unknown: {exc}"
    return done.stdout.strip() or "version unknown"
