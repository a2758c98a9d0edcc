"""`paicli verify`: every rule over every run of a ledger."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from paicli_tui.records.ledger import TORN, LedgerLine
from paicli_tui.records.plan_state import PlanState
from paicli_tui.records.budget_rules import CostLimit
from paicli_tui.records.check_rules import CheckedWork
from paicli_tui.records.merge_rules import MergeRecords
from paicli_tui.records.rules import RULES as ORDER_RULES, Violation

#: Every rule verify checks: the scheduling rules, isolation's merge chain, the checks, money.
RULES = (*ORDER_RULES, MergeRecords, CheckedWork, CostLimit)
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
    # A line a reader had to skip is a damaged record, not a passing one —
    # except a torn last line: a crash while writing loses that one (P-8.1).
    last_good = lines[-1].number if lines else 0
    for warning in result.warnings:
        number = _line_number(warning)
        if TORN in warning and number > last_good:
            continue
        result.violations.append(Violation(number, "well-formed", warning.split(": ", 1)[-1]))
    result.violations.extend(sequence_violations(lines))
    if not lines:
        result.violations.append(Violation(0, "not-empty", "empty ledger: nothing to verify"))
    elif not runs:
        result.violations.append(Violation(lines[-1].number, "not-empty", "no run recorded: nothing to verify"))
    for run in runs:
        result.violations.extend(verify_run(run))
    result.violations.sort(key=lambda v: v.line)
    return result


def sequence_violations(lines: list[LedgerLine]) -> list[Violation]:
    """The writer numbers lines 1, 2, 3…: a gap is a deleted line, a repeat
    or a step back a duplicated or moved one."""
    found = []
    expected = 1
    for line in lines:
        seq = line.data["seq"]
        if seq > expected:
            missing = seq - expected
            found.append(Violation(line.number, "sequence",
                                   f"seq {seq} where {expected} was due: {missing} line{'s' if missing != 1 else ''} "
                                   "missing before it"))
        elif seq < expected:
            found.append(Violation(line.number, "sequence",
                                   f"seq {seq} again after seq {expected - 1}: a duplicated or moved line"))
            continue
        expected = seq + 1
    return found


def _line_number(warning: str) -> int:
    """The line number a reader's warning names (``path:12: …``)."""
    head = warning.split(": ", 1)[0]
    number = head.rsplit(":", 1)[-1]
    return int(number) if number.isdigit() else 0


#: Checks of the record itself, made before any engine rule is read.
RECORD_CHECKS: tuple[tuple[str, str], ...] = (
    ("well-formed", "every line is a whole record the reader accepts (only a torn last line may be lost)"),
    ("sequence", "lines are numbered 1, 2, 3… with no gap, repeat or step back"),
    ("not-empty", "the ledger records at least one run"),
)


def checklist() -> list[tuple[str, str]]:
    """Every check ``verify`` makes, in the order it reports them."""
    return list(RECORD_CHECKS) + [(rule.name, rule.text) for rule in RULES]


def outcome(result: Verification) -> list[dict]:
    """Each check with what it found: ``ok`` and the violations (line and
    message) that broke it. A violation of an unlisted check still shows."""
    by_rule: dict[str, list[Violation]] = {}
    for violation in result.violations:
        by_rule.setdefault(violation.rule, []).append(violation)
    checks = checklist()
    known = {name for name, _ in checks}
    checks += [(name, "") for name in by_rule if name not in known]
    return [{"rule": name, "text": text, "ok": name not in by_rule,
             "violations": [{"line": v.line, "message": v.message} for v in by_rule.get(name, [])]}
            for name, text in checks]


def render(result: Verification) -> list[str]:
    out = [f"ledger: {result.path} ({result.lines} lines, {result.runs} run{'s' if result.runs != 1 else ''})"]
    out += [f"warning: {w}" for w in result.warnings]
    checks = outcome(result)
    width = max(len(c["rule"]) for c in checks)
    for check in checks:
        out.append(f"{'✓' if check['ok'] else '✗'} {check['rule'].ljust(width)}  {check['text']}".rstrip())
        out += [f"    line {v['line']}: {v['message']}" for v in check["violations"]]
    broken = sum(1 for c in checks if not c["ok"])
    if result.ok:
        out.append(f"ok: {len(checks)} rules hold")
    else:
        n = len(result.violations)
        out.append(f"{broken} of {len(checks)} rules broken: {n} violation{'s' if n != 1 else ''}")
    return out


def as_json(result: Verification) -> dict:
    return {"ledger": str(result.path), "lines": result.lines, "runs": result.runs, "ok": result.ok,
            "warnings": result.warnings, "rules": outcome(result)}
