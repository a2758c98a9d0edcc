"""Rule-based risk check for shell commands (P-6.5, auto mode).

The command is split into simple commands (``command_split``), each
stripped of wrappers such as ``env`` or ``nohup``, and checked against rules
in ``risk_rules``. The check is
deliberately conservative: a risky verdict only means "ask the person".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from paicli_tui.policy.command_split import SimpleCommand, heredocs_as_strings, split_commands
from paicli_tui.policy.invocations import invocations
from paicli_tui.policy.risk_egress import NETWORK_REASON
from paicli_tui.policy.risk_invocations import Written, invocation_reason
from paicli_tui.policy.risk_rules import CommandChecker


@dataclass(frozen=True)
class RiskVerdict:
    risky: bool
    reason: str


SAFE = RiskVerdict(False, "")

_FORK_BOMB = re.compile(r"(\S+)\s*\(\s*\)\s*\{[^}]*\1\s*\|\s*\1")
_DOWNLOAD_EXECUTED = re.compile(
    r"\b(eval|source|sh|bash|zsh|dash|ksh|python3?|perl|ruby|node)\b[^;&|\n]*(\$\(|`|<\()\s*(curl|wget)\b"
    r"|(^|[;&|(\s])\.\s+<\(\s*(curl|wget)\b"
)
#: Any process's environment (paicli's holds the API key), the pid spelt
#: however: 1234, $PPID, *, $(pgrep paicli), `pidof python`.
_PROC_ENVIRON = re.compile(r"/proc/(?:[^\s/]+|\$\([^)]*\)|`[^`]*`)/environ\b")
_SUBSTITUTION = re.compile(r"\$\(([^()]*(?:\([^()]*\)[^()]*)*)\)|`([^`]*)`")
MAX_DEPTH = 3

def classify_command(command: str, workspace: Path, written_since_ns: int | None = None,
                     written_files: frozenset[Path] = frozenset(), *, network_allowed: bool = False) -> RiskVerdict:
    """``written_files`` (the files tools changed this run) and files
    modified since ``written_since_ns`` count as written by this run:
    running one is running text the model chose. ``network_allowed``: a
    ``network: allow`` rule of the person's covers the command, so
    contacting the network alone does not make it risky (reading stored
    secrets still does)."""
    written = Written(written_files, written_since_ns)
    try:
        verdict = _classify(command, CommandChecker(workspace), depth=0, network_allowed=network_allowed)
        if verdict.risky:
            return verdict
        return _invocations_verdict(command, workspace, written, network_allowed) or verdict
    except Exception as exc:  # a checker bug must not let a command through unseen
        return RiskVerdict(True, f"cannot analyse the command ({type(exc).__name__})")


def _classify(command: str, checker, depth: int, network_allowed: bool = False) -> RiskVerdict:
    if _FORK_BOMB.search(command):
        return RiskVerdict(True, "fork bomb")
    if _DOWNLOAD_EXECUTED.search(command):
        return RiskVerdict(True, "runs code downloaded from the internet")
    environ = _PROC_ENVIRON.search(command)
    if environ and not environ.group(0).startswith("/proc/self/"):
        return RiskVerdict(True, f"reads another process's environment, which holds secrets ({environ.group(0)})")
    command = heredocs_as_strings(command)
    try:
        commands = split_commands(command)
    except ValueError:
        return RiskVerdict(True, "cannot parse the command (unbalanced quotes)")
    # Egress (network, stored secrets) is checked on every simple command;
    # a more specific rule found later in the command still names itself.
    egress: str | None = None
    for simple in commands:
        checker.script = command
        egress = egress or _unless_allowed(checker.egress(simple), network_allowed)
        reason = checker.check(simple)
        if reason:
            return RiskVerdict(True, _joined(reason, egress))
        nested = checker.nested_script(simple)
        if nested and depth < MAX_DEPTH:
            verdict = _classify(nested, checker, depth + 1, network_allowed)
            if verdict.risky:
                return RiskVerdict(True, _joined(verdict.reason, egress))
    if depth < MAX_DEPTH:
        # Substitutions inside double quotes stay one word for shlex.
        for match in _SUBSTITUTION.finditer(command):
            verdict = _classify(match.group(1) or match.group(2) or "", checker, depth + 1, network_allowed)
            if verdict.risky:
                return RiskVerdict(True, _joined(verdict.reason, egress))
    return RiskVerdict(True, egress) if egress else SAFE


def _invocations_verdict(command: str, workspace: Path, written: Written,
                         network_allowed: bool = False) -> RiskVerdict | None:
    """The same command seen as the programs it really runs: through
    wrappers, shells, variables, find -exec and xargs."""
    checker = CommandChecker(workspace)
    try:
        runs = invocations(heredocs_as_strings(command), workspace)
    except ValueError:
        return RiskVerdict(True, "cannot parse the command (unbalanced quotes)")
    egress = None
    for inv in runs:
        reason = invocation_reason(inv, checker, written, command)
        if reason is None and inv.program:
            simple = SimpleCommand(list(inv.words), list(inv.redirects))
            reason = checker.check(simple)
            egress = egress or _unless_allowed(checker.egress(simple), network_allowed)
        if reason:
            return RiskVerdict(True, _joined(reason, egress))
    return RiskVerdict(True, egress) if egress else None


def _unless_allowed(egress: str | None, network_allowed: bool) -> str | None:
    if network_allowed and egress is not None and egress.startswith(NETWORK_REASON):
        return None
    return egress


def _joined(reason: str, egress: str | None) -> str:
    return reason if not egress or egress in reason else f"{reason}; {egress}"

