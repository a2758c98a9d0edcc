"""The review screen's editing state (P-4.3), without Textual: the plan as a
JSON-shaped dict, an undo stack, and the P-3.2 problems of the current
version keyed by task id.

Every edit goes through ``plan.edits`` (pure functions) and the result is
validated at once. Ids stay as they are while the person edits (a new task
gets the next id never used in this review), so "task_4" and every
``← task_4`` keep naming the same task; the plan is renumbered in array
order once, when it runs, and ``renumbering`` says which ids that changes.
An invalid version is kept and shown with its problems; it just cannot be
turned into a runnable plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from paicli_tui.plan import edits
from paicli_tui.plan.files import write_plan_file
from paicli_tui.plan.model import Plan, id_prefix_of
from paicli_tui.plan.parser import PlanError, plan_from_dict, validate_plan_dict
from paicli_tui.plan.schema import entries_key
from paicli_tui.records.run_views import TaskView, tasks_from_entries


@dataclass
class PlanEditState:
    plan_dict: dict
    prefix: str = "task"
    problems: list[PlanError] = field(default_factory=list)
    _undo: list[dict] = field(default_factory=list)
    #: Every id a task had in this review, so a deleted task's id is never reused.
    _used: set[str] = field(default_factory=set)
    #: The version last written by ``save`` (None: never saved).
    _saved: dict | None = None
    #: The version the review started from.
    _original: dict | None = None
    #: Tasks an interrupted run already finished (id → (entry, status)): marked while unchanged.
    _finished: dict = field(default_factory=dict)

    @classmethod
    def from_plan(cls, plan: Plan) -> "PlanEditState":
        state = cls(plan.to_dict(), id_prefix_of(plan))
        state._used = set(plan.ids)
        state._original = state.plan_dict
        state._finished = {t.id: (t.to_dict(), t.status.value) for t in plan.tasks
                           if t.status.value not in ("PENDING", "RUNNING")}
        return state

    @property
    def noun(self) -> str:
        """The mode's word for one entry: "step" in /team, "task" in /plan."""
        return "step" if self.prefix == "step" else "task"

    # -- reading -----------------------------------------------------------------

    @property
    def entries(self) -> list:
        return self.plan_dict.get(entries_key(self.plan_dict) or "tasks") or []

    @property
    def ids(self) -> list[str]:
        return [task.id for task in self.tasks()]

    def tasks(self) -> list[TaskView]:
        views = tasks_from_entries(self.entries)
        for view in views if self._finished else ():
            finished = self._finished.get(view.id)
            if finished is not None and _same_entry(finished[0], view):
                view.status = finished[1]
        return views

    def task(self, task_id: str) -> TaskView:
        return next(task for task in self.tasks() if task.id == task_id)

    def index_of(self, task_id: str) -> int:
        return self.ids.index(task_id)

    @property
    def valid(self) -> bool:
        return not self.problems

    @property
    def edited(self) -> bool:
        """The plan differs from the one the review started with (edits
        that were undone, or that undid each other, do not count)."""
        return bool(self._undo) and self.plan_dict != self._original

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def unsaved(self) -> bool:
        """Hand edits that exist nowhere but on this screen."""
        return self.edited and self.plan_dict != self._saved

    def problems_by_task(self) -> tuple[dict[str, list[str]], list[str]]:
        """(task id → problem texts, problems that belong to no task)."""
        ids = self.ids
        by_task: dict[str, list[str]] = {}
        general: list[str] = []
        for problem in self.problems:
            if problem.step_index is not None and problem.step_index < len(ids):
                # "dependencies[0]" is the JSON path; the person sees one list of dependencies.
                field_name = f"{problem.field.partition('[')[0]}: " if problem.field else ""
                by_task.setdefault(ids[problem.step_index], []).append(field_name + problem.detail)
            else:
                general.append(str(problem))
        return by_task, general

    def to_plan(self) -> Plan:
        """The plan to run, renumbered in array order (P-3.2 rule 8); raises
        PlanError while the plan is invalid."""
        return plan_from_dict(self.plan_dict, self.prefix)

    def as_edited(self) -> Plan:
        """The plan with the ids the person sees (for an amendment, so the
        planner and the diff speak of the same tasks); raises PlanError."""
        return plan_from_dict(self.plan_dict, self.prefix, renumber=False)

    def renumbering(self) -> list[tuple[str, str]]:
        """(shown id, id at run time) for each id running renumbers; empty
        while the plan is invalid (it cannot run)."""
        if not self.valid:
            return []
        return edits.renumbering(self.ids, self.to_plan().ids)

    # -- editing -----------------------------------------------------------------

    def apply(self, edit: Callable[..., dict], *args) -> bool:
        """Run one ``plan.edits`` function and validate; ids are left alone.
        An edit that changes nothing (moving the last task down, the same
        text again) is not recorded: False."""
        edited = edit(self.plan_dict, *args)
        if edited == self.plan_dict:
            return False
        self._undo.append(self.plan_dict)
        self.plan_dict = edited
        self._used.update(self.ids)
        self.validate()
        return True

    def add_task(self, after_id: str | None, description: str) -> str:
        """Insert a new task after ``after_id``, of that task's type (a task
        added under a FILE_READ is most likely another read; ANALYSIS when
        there is none); returns its id."""
        used = frozenset(self._used)
        new_id = edits.next_free_id(self.plan_dict, self.prefix, used)
        above = next((t for t in self.plan_dict.get(entries_key(self.plan_dict) or "tasks", [])
                      if isinstance(t, dict) and t.get("id") == after_id), None)
        kind = above.get("type") if above and isinstance(above.get("type"), str) else "ANALYSIS"
        self.apply(edits.add_task, after_id, description, kind, self.prefix, used)
        return new_id

    def undo(self) -> bool:
        if not self._undo:
            return False
        self.plan_dict = self._undo.pop()
        self.validate()
        return True

    def validate(self) -> None:
        self.problems = validate_plan_dict(self.plan_dict, self.prefix)

    # -- files ---------------------------------------------------------------------

    def save(self, folder: Path, goal: str) -> Path:
        """Write the plan (with its goal) as JSON to a new file in ``folder``."""
        summary = self.plan_dict.get("summary")
        path = write_plan_file(folder, self.prefix, goal, self.entries, summary if isinstance(summary, str) else None)
        self._saved = self.plan_dict
        return path


def _same_entry(entry: dict, view: TaskView) -> bool:
    return (entry.get("description"), entry.get("type"), list(entry.get("dependencies") or [])) == (
        view.description, view.type, list(view.dependencies))
