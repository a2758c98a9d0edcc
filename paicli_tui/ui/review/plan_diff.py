"""What an amendment changed (P-4.2): tasks added, removed and changed, and
dependencies added or removed, shown before the revised plan can be run.

Ids are renumbered on every parse, so a task inserted near the top shifts
every id after it; tasks are therefore paired by their description and type
first, then by id, and dependencies are compared through that pairing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.content import Content
from textual.widgets import Static

from paicli_tui.plan.model import Plan, Task


@dataclass
class PlanDiff:
    added: list[Task] = field(default_factory=list)
    removed: list[Task] = field(default_factory=list)
    #: (old, new) pairs whose description or type changed.
    changed: list[tuple[Task, Task]] = field(default_factory=list)
    #: (new task id, dependency ids added, dependency ids removed), ids of the new plan
    #: (a removed dependency that no longer exists keeps its old id).
    dependencies: list[tuple[str, list[str], list[str]]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.dependencies)


def _pair(old: Plan, new: Plan) -> dict[str, str]:
    """old id → new id for tasks that survived."""
    pairs: dict[str, str] = {}
    taken: set[str] = set()
    by_content: dict[tuple[str, str], list[str]] = {}
    for task in new.tasks:
        by_content.setdefault((task.description, task.type.value), []).append(task.id)
    for task in old.tasks:
        candidates = [tid for tid in by_content.get((task.description, task.type.value), []) if tid not in taken]
        if candidates:
            pairs[task.id] = candidates[0]
            taken.add(candidates[0])
    new_ids = set(new.ids)
    for task in old.tasks:
        if task.id not in pairs and task.id in new_ids and task.id not in taken:
            pairs[task.id] = task.id
            taken.add(task.id)
    return pairs


def diff_plans(old: Plan, new: Plan) -> PlanDiff:
    pairs = _pair(old, new)
    reverse = {new_id: old_id for old_id, new_id in pairs.items()}
    diff = PlanDiff()
    diff.removed = [task for task in old.tasks if task.id not in pairs]
    diff.added = [task for task in new.tasks if task.id not in reverse]
    for task in new.tasks:
        old_id = reverse.get(task.id)
        if old_id is None:
            continue
        before = old.task(old_id)
        if (before.description, before.type) != (task.description, task.type):
            diff.changed.append((before, task))
        old_deps = [pairs.get(dep, dep) for dep in before.dependencies]
        added = [dep for dep in task.dependencies if dep not in old_deps]
        removed = [dep for dep in old_deps if dep not in task.dependencies]
        if added or removed:
            diff.dependencies.append((task.id, added, removed))
    return diff


def diff_content(diff: PlanDiff) -> Content:
    """One line per change, added and removed tasks in the theme's
    ``$diff-added`` / ``$diff-removed`` colours."""
    lines: list[Content] = []
    if diff.empty:
        return Content("= no changes: the revised plan is the same as the previous one")
    for task in diff.added:
        lines.append(Content.styled(f"+ {task.id} {task.type.value}  {task.description}", "$diff-added"))
    for task in diff.removed:
        lines.append(Content.styled(f"− {task.type.value}  {task.description}  (was {task.id})", "$diff-removed"))
    for before, after in diff.changed:
        if before.type != after.type:
            lines.append(Content(f"~ {after.id} type {before.type.value} → {after.type.value}"))
        if before.description != after.description:
            lines.append(Content(f"~ {after.id} description: “{before.description}” → “{after.description}”"))
    for task_id, added, removed in diff.dependencies:
        parts = [f"+{dep}" for dep in added] + [f"−{dep}" for dep in removed]
        lines.append(Content(f"~ {task_id} dependencies {' '.join(parts)}"))
    return Content("\n").join(lines)


class PlanDiffView(Static):
    """The diff panel of the review screen."""

    DEFAULT_CSS = """
    PlanDiffView {
        border: round $primary;
        border-title-color: $primary;
        padding: 0 1;
        height: auto;
        max-height: 12;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.border_title = "Changes from the previous version"
        self.diff: PlanDiff | None = None

    def show_diff(self, old: Plan, new: Plan) -> PlanDiff:
        self.diff = diff_plans(old, new)
        self.update(diff_content(self.diff))
        return self.diff
