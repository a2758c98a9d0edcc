"""Hand edits on the review screen (P-4.3) as pure functions.

Each takes a JSON-shaped plan dict (``{"summary"?, "tasks": [{id, description,
type, dependencies, check?}]}``, usually ``Plan.to_dict()``) and returns a NEW dict;
the input is never changed. Edits do not validate: the screen runs
``validate_plan_dict`` on the result, so an edit that breaks a rule (an
unknown id, a cycle) is shown next to the task instead of being refused.
Edits never renumber: the ids a person reads while editing keep meaning the
same tasks; the plan is renumbered once, when it runs (``renumbering`` says
which ids that changes).
"""

from __future__ import annotations

import copy
import re
from typing import Any, Iterable

from paicli_tui.plan.model import TaskType
from paicli_tui.plan.parser import PlanError, noun_of, quote
from paicli_tui.plan.schema import entries_key


def _copy(plan_dict: dict) -> tuple[dict, list[dict]]:
    edited = copy.deepcopy(plan_dict)
    key = entries_key(edited) or "tasks"
    tasks = edited.setdefault(key, [])
    return edited, tasks


def _position(tasks: list[dict], task_id: str) -> int:
    for index, task in enumerate(tasks):
        if task.get("id") == task_id:
            return index
    raise KeyError(f"no task with id {task_id!r}")


def _type_value(task_type: str | TaskType) -> str:
    return task_type.value if isinstance(task_type, TaskType) else task_type


def _dependencies(task: dict) -> list[Any]:
    deps = task.get("dependencies")
    if not isinstance(deps, list):
        deps = []
        task["dependencies"] = deps
    return deps


def set_description(plan_dict: dict, task_id: str, description: str) -> dict:
    edited, tasks = _copy(plan_dict)
    tasks[_position(tasks, task_id)]["description"] = description
    return edited


def set_type(plan_dict: dict, task_id: str, type: str | TaskType) -> dict:  # noqa: A002 - the plan field's name
    edited, tasks = _copy(plan_dict)
    tasks[_position(tasks, task_id)]["type"] = _type_value(type)
    return edited


def set_check(plan_dict: dict, task_id: str, check: str) -> dict:
    """Set the task's check command; a blank one removes it."""
    edited, tasks = _copy(plan_dict)
    task = tasks[_position(tasks, task_id)]
    if check.strip():
        task["check"] = check.strip()
    else:
        task.pop("check", None)
    return edited


def add_dependency(plan_dict: dict, task_id: str, dependency_id: str) -> dict:
    """Append ``dependency_id`` unless already listed (unknown ids and cycles
    are left for validation to report)."""
    edited, tasks = _copy(plan_dict)
    deps = _dependencies(tasks[_position(tasks, task_id)])
    if dependency_id not in deps:
        deps.append(dependency_id)
    return edited


def remove_dependency(plan_dict: dict, task_id: str, dependency_id: str) -> dict:
    edited, tasks = _copy(plan_dict)
    task = tasks[_position(tasks, task_id)]
    task["dependencies"] = [dep for dep in _dependencies(task) if dep != dependency_id]
    return edited


def next_free_id(plan_dict: dict, prefix: str = "task", used: Iterable[str] = ()) -> str:
    """``{prefix}_N`` one above the highest N any task has — or had: ``used``
    names ids handed out earlier (a deleted task's id is never reused, so a
    person's "task_4" always means one task) — and above the task count."""
    key = entries_key(plan_dict) or "tasks"
    tasks = plan_dict.get(key) or []
    ids = [task.get("id") for task in tasks if isinstance(task, dict)] + list(used)
    pattern = re.compile(rf"{re.escape(prefix)}_(\d+)")
    numbers = [int(found.group(1)) for tid in ids if isinstance(tid, str) and (found := pattern.fullmatch(tid))]
    number = max([len(tasks), *numbers]) + 1
    taken = set(ids)
    while f"{prefix}_{number}" in taken:
        number += 1
    return f"{prefix}_{number}"


def add_task(
    plan_dict: dict,
    after_id: str | None,
    description: str,
    type: str | TaskType = TaskType.ANALYSIS,  # noqa: A002 - the plan field's name
    prefix: str = "task",
    used: Iterable[str] = (),
) -> dict:
    """Insert a task with no dependencies after ``after_id`` (at the end when
    None); its id is ``next_free_id`` (never one in ``used``). Other ids stay."""
    edited, tasks = _copy(plan_dict)
    new_task = {
        "id": next_free_id(plan_dict, prefix, used),
        "description": description,
        "type": _type_value(type),
        "dependencies": [],
    }
    where = len(tasks) if after_id is None else _position(tasks, after_id) + 1
    tasks.insert(where, new_task)
    return edited


def delete_task(plan_dict: dict, task_id: str) -> dict:
    """Remove the task; tasks that depended on it lose that dependency."""
    edited, tasks = _copy(plan_dict)
    del tasks[_position(tasks, task_id)]
    for task in tasks:
        if isinstance(task.get("dependencies"), list) and task_id in task["dependencies"]:
            task["dependencies"] = [dep for dep in task["dependencies"] if dep != task_id]
    return edited


def move_task(plan_dict: dict, task_id: str, offset: int) -> dict:
    """Move by ``offset`` places in the array (clamped to the ends). Ids stay,
    so dependencies keep pointing to the same tasks."""
    edited, tasks = _copy(plan_dict)
    index = _position(tasks, task_id)
    task = tasks.pop(index)
    tasks.insert(max(0, min(len(tasks), index + offset)), task)
    return edited


def renumbering(before: list[str], after: list[str]) -> list[tuple[str, str]]:
    """(shown id, id it runs as) for each task whose id changes, in array
    order: ``before`` the ids being edited, ``after`` the renumbered ones."""
    return [(old, new) for old, new in zip(before, after) if old != new]


def renumber(plan_dict: dict, prefix: str = "task") -> dict:
    """Re-derive ``{prefix}_1…N`` in array order and rewrite dependencies.

    Unknown dependencies are kept as written for validation to report —
    unless one would then name a renumbered task, which would silently turn
    a wrong id into a guessed one; that, and repeated ids, raise PlanError.
    """
    edited, tasks = _copy(plan_dict)
    mapping: dict[str, str] = {}
    for index, task in enumerate(tasks):
        old_id = task.get("id")
        if isinstance(old_id, str):
            if old_id in mapping:
                raise PlanError(
                    "repeated; cannot renumber", step_index=index, step_id=old_id, field="id", noun=noun_of(prefix)
                )
            mapping[old_id] = f"{prefix}_{index + 1}"
    new_ids = {f"{prefix}_{index + 1}" for index in range(len(tasks))}
    for index, task in enumerate(tasks):
        deps = task.get("dependencies")
        if isinstance(deps, list):
            for position, dep in enumerate(deps):
                if isinstance(dep, str) and dep not in mapping and dep in new_ids:
                    raise PlanError(
                        f"unknown id {quote(dep)} would name a renumbered task; fix it before renumbering",
                        step_index=index,
                        step_id=task.get("id") if isinstance(task.get("id"), str) else None,
                        field=f"dependencies[{position}]",
                        noun=noun_of(prefix),
                    )
            task["dependencies"] = [mapping.get(dep, dep) if isinstance(dep, str) else dep for dep in deps]
    for index, task in enumerate(tasks):
        task["id"] = f"{prefix}_{index + 1}"
    return edited
