"""Plan files (``--plan-file``, the review screen's ``s``): a plan saved as
JSON with its goal, read back by the same P-3.2 rules as a planner reply.
A file with ``steps`` is a /team plan (``step_`` ids), one with ``tasks``
a /plan plan (``task_`` ids)."""

from __future__ import annotations

import json
from pathlib import Path

from paicli_tui.plan.model import Plan
from paicli_tui.plan.parser import PlanError, plan_from_dict
from paicli_tui.plan.schema import entries_key
from paicli_tui.plan.strict_json import StrictJsonError, read_json_object


class PlanFileError(ValueError):
    """A plan file that cannot be read or breaks a P-3.2 rule."""


def _text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PlanFileError(f"plan file {path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise PlanFileError(f"plan file {path}: cannot read: {exc.strerror or exc}") from None


def plan_file_kind(path: Path) -> str:
    """``team`` for a file that lists ``steps``, else ``plan`` (a file that
    is not a JSON object is left for ``load_plan_file`` to explain)."""
    try:
        data = read_json_object(_text(path), "plan file")
    except StrictJsonError:
        return "plan"
    return "team" if entries_key(data) == "steps" else "plan"


def load_plan_file(path: Path, id_prefix: str | None = None) -> Plan:
    """Read a saved plan by the P-3.2 rules. Its ``goal`` becomes
    ``Plan.goal``; ids use ``step_`` when the file has ``steps`` (unless
    ``id_prefix`` says otherwise)."""
    text = _text(path)
    try:
        data = read_json_object(text, "plan file")
        prefix = id_prefix or ("step" if entries_key(data) == "steps" else "task")
        plan = plan_from_dict(data, prefix)
    except (StrictJsonError, PlanError) as exc:
        raise PlanFileError(f"plan file {path}: {exc}") from None
    goal = data.get("goal")
    plan.goal = goal if isinstance(goal, str) else ""
    return plan


def write_plan_file(folder: Path, prefix: str, goal: str, entries: list, summary: str | None = None) -> Path:
    """Write a plan with its goal to a new file in ``folder``
    (``task-plan-N.json`` / ``step-plan-N.json``); returns its path."""
    folder.mkdir(parents=True, exist_ok=True)
    data: dict = {"goal": goal}
    if summary is not None:
        data["summary"] = summary
    data["steps" if prefix == "step" else "tasks"] = entries
    number = 1
    while (path := folder / f"{prefix}-plan-{number}.json").exists():
        number += 1
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
