"""`paicli plan check FILE|-`: check a saved plan by the P-3.2 rules, list
every problem found (exit 1), or print it normalized (renumbered ids and
the batch rounds)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from paicli_tui.plan.parser import noun_of, plan_from_dict, validate_plan_dict
from paicli_tui.plan.strict_json import StrictJsonError, format_path, read_json_object


def _read_text(source: str) -> tuple[str, str]:
    """(display name, text); raises OSError / UnicodeDecodeError."""
    if source == "-":
        return "<stdin>", sys.stdin.buffer.read().decode("utf-8")
    return source, Path(source).read_bytes().decode("utf-8")


def _write(text: str) -> None:
    # JSON is UTF-8 whatever the terminal's encoding says.
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()


def main(args: argparse.Namespace) -> int:
    source = args.file
    name = "<stdin>" if source == "-" else source
    try:
        name, text = _read_text(source)
    except UnicodeDecodeError as exc:
        print(f"paicli: {name}: not UTF-8 text (byte {exc.start})", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"paicli: {name}: cannot read: {exc.strerror or exc}", file=sys.stderr)
        return 1
    prefix = getattr(args, "prefix", "task") or "task"
    try:
        data = read_json_object(text, "plan file")
    except StrictJsonError as exc:
        where = f"{format_path(exc.path)}: " if exc.path else ""
        print(f"paicli: {name}: {where}{exc.detail}", file=sys.stderr)
        return 1
    problems = validate_plan_dict(data, prefix)
    if problems:
        # Every problem at once: a person fixes the file in one pass.
        for problem in problems:
            print(f"paicli: {name}: {problem}", file=sys.stderr)
        count = len(problems)
        print(f"paicli: {name}: {count} problem{'s' if count != 1 else ''}", file=sys.stderr)
        return 1
    plan = plan_from_dict(data, prefix)
    for index, task in enumerate(plan.tasks):
        where = f"{noun_of(prefix)} {index + 1} (id {json.dumps(task.original_id, ensure_ascii=False)})"
        if task.type_warning:
            print(f"paicli: {name}: warning: {where}: type: {task.type_warning}", file=sys.stderr)
        if task.check_warning:
            print(f"paicli: {name}: warning: {where}: {task.check_warning}", file=sys.stderr)
    report = {
        "summary": plan.summary,
        "tasks": [task.to_dict() for task in plan.tasks],
        "batches": plan.batches(),
    }
    _write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    return 0
