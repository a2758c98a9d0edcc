"""`paicli verify`: every rule over every run of a ledger."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from paicli_tui.records.plan_state import PlanState
from paicli_tui.records.rules import RULES, Violation
from paicli_tui.records.runs import RunLines, load, split_runs


@dataclass
class Verification:
    path: Path
    lines: int = 0
    runs: int = 0
    violations: list[Violation] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations


def verify_run(run: RunLines) -> list[Violation]:
    rules = [rule(run.kind) for rule in RULES]
    plan = PlanState()
    found: list[Violation] = []
    for line in run.lines:
        for rule in rules:
            found.extend(rule.check(line, plan))
        plan.observe(line)
    return found


def verify_ledger(path: Path) -> Verification:
    result = Verification(path)
    lines = load(path, result.warnings)
    _, runs = split_runs(lines)
    result.lines, result.runs = len(lines), len(runs)
    for run in runs:
        result.violations.extend(verify_run(run))
    result.violations.sort(key=lambda v: v.line)
    return result


def render(result: Verification) -> list[str]:
    out = [f"ledger: {result.path} ({result.lines} lines, {result.runs} run{'s' if result.runs != 1 else ''})"]
    out += [f"warning: {w}" for w in result.warnings]
    out += [str(v) for v in result.violations]
    if result.ok:
        out.append(f"ok: {len(RULES)} rules hold")
    else:
        n = len(result.violations)
        out.append(f"{n} violation{'s' if n != 1 else ''}")
    return out
