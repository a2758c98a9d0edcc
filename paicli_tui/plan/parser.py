"""Strict plan parsing (P-3.2): a planner reply becomes a Plan or a PlanError
that names the step (position and original id) and the field.

Rules 1–3 live in strict_json, the shape in schema; this module checks what a
schema cannot (blank strings, repeated and unknown ids, cycles), renumbers ids
and builds the Plan. ``validate_plan_dict`` reports every problem at once for
live editing; the other entry points raise the first one.
"""

from __future__ import annotations

import json
from typing import Any

from jsonschema import ValidationError

from paicli_tui.plan.check_line import unrunnable_check
from paicli_tui.plan.cycles import find_cycles
from paicli_tui.plan.hints import near_match_hint
from paicli_tui.plan.model import Plan, Task, TaskType
from paicli_tui.plan.schema import FIELD_ORDER, PLAN_VALIDATOR, entries_key
from paicli_tui.plan.strict_json import StrictJsonError, format_path, read_json_object

_TYPE_NAMES = {member.value for member in TaskType}
_MAX_QUOTED = 80


def noun_of(prefix: str) -> str:
    """The word messages use for one entry: "task" in /plan, "step" in /team."""
    return "task" if prefix == "task" else "step"


def quote(value: str) -> str:
    """A JSON-quoted id for messages: one line, long ones shortened."""
    if len(value) > _MAX_QUOTED:
        value = value[: _MAX_QUOTED - 1] + "…"
    return json.dumps(value, ensure_ascii=False)


class PlanError(ValueError):
    """A plan that breaks a P-3.2 rule.

    ``step_index`` is the 0-based position in the task array (the message
    says ``task N`` or ``step N`` with N = step_index + 1: ``noun`` is the
    mode's word, "task" for /plan and "step" for /team), ``step_id`` the id
    the planner wrote (when it is a string), ``field`` e.g. ``dependencies[1]``.
    """

    def __init__(
        self,
        detail: str,
        *,
        step_index: int | None = None,
        step_id: str | None = None,
        field: str | None = None,
        noun: str = "step",
    ) -> None:
        self.detail = detail
        self.step_index = step_index
        self.step_id = step_id
        self.field = field
        self.noun = noun
        parts = []
        if step_index is not None:
            parts.append(f"{noun} {step_index + 1}" + (f" (id {quote(step_id)})" if step_id is not None else ""))
        if field:
            parts.append(field)
        parts.append(detail)
        super().__init__(": ".join(parts))

    @property
    def step_position(self) -> int | None:
        """1-based position, as shown in the message."""
        return None if self.step_index is None else self.step_index + 1

    def _sort_key(self) -> tuple[int, int, int]:
        index = -1 if self.step_index is None else self.step_index
        name, _, rest = (self.field or "").partition("[")
        sub = int(rest.rstrip("]")) if rest.rstrip("]").isdigit() else -1
        return index, FIELD_ORDER.get(name, len(FIELD_ORDER)), sub


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def parse_plan(reply: str, id_prefix: str = "task", *, renumber: bool = True) -> Plan:
    """Parse a planner reply by every P-3.2 rule; raise PlanError otherwise.
    ``renumber=False``: see ``plan_from_dict``."""
    try:
        data = read_json_object(reply, "plan reply")
    except StrictJsonError as exc:
        raise _from_strict_error(exc, noun_of(id_prefix)) from None
    return plan_from_dict(data, id_prefix, renumber=renumber)


def plan_from_dict(data: dict, id_prefix: str = "task", *, renumber: bool = True) -> Plan:
    """Rules 4–9 on an already-parsed object; raise the first problem.

    ``renumber=False`` keeps the written ids (rule 8 skipped): the review
    screen sends a hand-edited plan to the planner with the ids the person
    saw; a plan that runs is always renumbered."""
    problems, plan = _check(data, id_prefix, renumber)
    if problems:
        raise problems[0]
    assert plan is not None
    return plan


def validate_plan_dict(data: dict, id_prefix: str = "task") -> list[PlanError]:
    """Every rule 4–9 problem, in document order (empty when the plan is valid)."""
    return _check(data, id_prefix)[0]


def _from_strict_error(exc: StrictJsonError, noun: str) -> PlanError:
    path = exc.path
    if len(path) >= 2 and path[0] in ("steps", "tasks") and isinstance(path[1], int):
        field = format_path(path[2:]) if len(path) > 2 else None
        return PlanError(exc.detail, step_index=path[1], field=field, noun=noun)
    return PlanError(str(exc))


def _check(data: Any, prefix: str, renumber: bool = True) -> tuple[list[PlanError], Plan | None]:
    schema_errors = list(PLAN_VALIDATOR.iter_errors(data))
    key = entries_key(data) if isinstance(data, dict) else None
    if key is None or any(len(error.absolute_path) < 2 for error in schema_errors):
        return [_root_problem(data)], None
    entries: list = data[key]
    noun = noun_of(prefix)
    problems: list[PlanError] = []
    for error in schema_errors:
        problems.extend(_schema_problems(error, entries, noun))

    def problem(index: int, field: str, detail: str) -> PlanError:
        return PlanError(detail, step_index=index, step_id=_written_id(entries[index]), field=field, noun=noun)

    first_position = _declared_ids(entries, problem, problems, noun)

    edges: list[list[int]] = [[] for _ in entries]
    dep_fields: list[dict[int, str]] = [{} for _ in entries]
    types: list[TaskType] = [TaskType.ANALYSIS] * len(entries)
    warnings = [""] * len(entries)
    hints_left = 25  # each near-match hint scans every id; plenty for a human to act on
    written_ids = [_written_id(entry) for entry in entries]
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        description = entry.get("description")
        if isinstance(description, str) and not description.strip():
            problems.append(problem(index, "description", "is blank"))
        check = entry.get("check")
        if isinstance(check, str) and ("\n" in check.strip() or "\x00" in check):
            problems.append(problem(index, "check", "must be one command line (no newline or NUL)"))
        raw_type = entry.get("type")
        if isinstance(raw_type, str):
            types[index], warnings[index] = _task_type(raw_type)
        dependencies = entry.get("dependencies")
        if not isinstance(dependencies, list):
            continue
        for position, dependency in enumerate(dependencies):
            if not isinstance(dependency, str):
                continue
            target = first_position.get(dependency)
            if target is None:
                detail = f"unknown id {quote(dependency)}"
                if hints_left > 0:
                    hints_left -= 1
                    detail += near_match_hint(dependency, written_ids, prefix)
                problems.append(problem(index, f"dependencies[{position}]", detail))
            elif target not in dep_fields[index]:  # repeats collapse, first kept
                dep_fields[index][target] = f"dependencies[{position}]"
                edges[index].append(target)

    for cycle in find_cycles(edges):
        start, following = cycle[0], cycle[1]
        names = " → ".join(quote(written_ids[node]) for node in cycle)
        detail = f"depends on itself ({names})" if len(cycle) == 2 else f"dependency cycle {names}"
        problems.append(problem(start, dep_fields[start][following], detail))

    if problems:
        return _in_document_order(problems), None
    ids = [f"{prefix}_{index + 1}" for index in range(len(entries))] if renumber else written_ids
    check_warnings = [unrunnable_check(_check_of(entry)) for entry in entries]
    tasks = [
        Task(
            id=ids[index],
            description=entry["description"],
            type=types[index],
            dependencies=[ids[target] for target in edges[index]],
            original_id=entry["id"],
            type_warning=warnings[index],
            check="" if check_warnings[index] else _check_of(entry),
            check_warning=check_warnings[index],
        )
        for index, entry in enumerate(entries)
    ]
    summary = data.get("summary")
    return [], Plan(tasks=tasks, summary=summary if isinstance(summary, str) else "")


def _declared_ids(entries: list, problem, problems: list[PlanError], noun: str) -> dict[str, int]:
    """Rule 5: id → position of its first declaration; blank and repeated
    ids are recorded as problems."""
    first_position: dict[str, int] = {}
    for index, entry in enumerate(entries):
        task_id = _written_id(entry)
        if task_id is None:
            continue
        if not task_id.strip():
            problems.append(problem(index, "id", "is blank"))
        if task_id in first_position:
            earlier = first_position[task_id]
            problems.append(problem(index, "id", f"repeated: {noun} {earlier + 1} already has id {quote(task_id)}"))
        else:
            first_position[task_id] = index
    return first_position


def _check_of(entry: dict) -> str:
    """The task's check command; a blank one is no check."""
    check = entry.get("check")
    return check.strip() if isinstance(check, str) else ""


def _written_id(entry: Any) -> str | None:
    task_id = entry.get("id") if isinstance(entry, dict) else None
    return task_id if isinstance(task_id, str) else None


def _task_type(raw: str) -> tuple[TaskType, str]:
    # Case is ignored in ASCII only: str.upper() would turn "fıle_read" (dotless ı) into FILE_READ.
    upper = raw.upper() if raw.isascii() else raw
    if upper in _TYPE_NAMES:
        return TaskType(upper), ""
    return TaskType.ANALYSIS, f"unknown type {quote(raw)}; treated as ANALYSIS"


def _in_document_order(problems: list[PlanError]) -> list[PlanError]:
    unique: dict[str, PlanError] = {}
    for item in problems:
        unique.setdefault(str(item), item)
    return sorted(unique.values(), key=PlanError._sort_key)


def _root_problem(data: Any) -> PlanError:
    if not isinstance(data, dict):
        return PlanError(f"the plan must be a JSON object, got {json_type(data)}")

    def describe(key: str) -> str:
        if key not in data:
            return f'"{key}" is missing'
        value = data[key]
        if isinstance(value, list):
            return f'"{key}" is an empty array'
        return f'"{key}" is {json_type(value)}, not an array'

    return PlanError(
        f'no tasks: {describe("steps")} and {describe("tasks")} (expected a non-empty "steps" or "tasks" array)'
    )


def _schema_problems(error: ValidationError, entries: list, noun: str) -> list[PlanError]:
    path = list(error.absolute_path)
    index = path[1]
    entry = entries[index]
    step_id = _written_id(entry)

    def made(field: str | None, detail: str) -> PlanError:
        return PlanError(detail, step_index=index, step_id=step_id, field=field, noun=noun)

    if len(path) == 2 and error.validator == "required":
        missing = [name for name in error.validator_value if name not in entry]
        return [made(name, "missing (a non-blank string is required)") for name in missing]
    if len(path) == 2:
        return [made(None, f"must be an object, got {json_type(error.instance)}")]
    field = format_path(tuple(path[2:]))
    if field == "check" and error.instance is None:
        return [made(field, "null is not allowed (leave the field out for no check)")]
    if field == "dependencies" and error.instance is None:
        return [made(field, "null is not allowed (leave the field out for no dependencies)")]
    expected = {"dependencies": "an array of ids"}.get(field, "a string")
    return [made(field, f"must be {expected}, got {json_type(error.instance)}")]
