"""The text summary of a finished plan or team run (P-4.6, P-5.10).

One header line with the counts, then one line per task: completed first,
then failures, blocked and skipped tasks, each group in topological order.
Results are cut to a one-line preview; the full text stays in the task (and
in the ledger). The run's answer (``final_answer``) is never cut: it is what
the person asked for.
"""

from __future__ import annotations

from typing import Sequence

from paicli_tui.plan.model import Plan, PlanStatus, Task, TaskStatus
from paicli_tui.plan.outcome import outcome_of, plain_preview

PREVIEW_CHARS = 120
#: Header and line order; "cancelled" is a SKIPPED task the cancel interrupted.
_GROUPS = ("completed", "failed", "blocked", "cancelled", "skipped")

_ORDER = (TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.BLOCKED, TaskStatus.SKIPPED)
_ICON = {
    TaskStatus.COMPLETED: "✅",
    TaskStatus.FAILED: "❌",
    TaskStatus.BLOCKED: "⛔",
    TaskStatus.SKIPPED: "⏭️",
    TaskStatus.PENDING: "⏭️",
    TaskStatus.RUNNING: "⏭️",
    TaskStatus.CONFLICT: "⚡",
}
_CANCELLED_ICON = "⏹️"
_ICONS = frozenset(_ICON.values()) | {_CANCELLED_ICON}


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """``text`` as plain text on one line (Markdown marks dropped), cut at a
    word to ``limit`` characters plus "…" when longer."""
    return plain_preview(text, limit)


def _group(status: TaskStatus) -> TaskStatus:
    # A task left PENDING or RUNNING at the end never ran to completion: it is
    # reported with the skipped ones.
    return status if status in _ORDER else TaskStatus.SKIPPED


def group_of(task: Task) -> str:
    """The word the header counts the task under (one of ``_GROUPS``)."""
    return outcome_of(_group(task.status), task.error)


def counts(plan: Plan) -> dict[str, int]:
    tally = {group: 0 for group in _GROUPS}
    for task in plan.tasks:
        tally[group_of(task)] += 1
    return tally


def task_line(task: Task) -> str:
    icon = _CANCELLED_ICON if group_of(task) == "cancelled" else _ICON[task.status]
    head = f"{icon} {task.id}: {preview(task.description)}"
    group = _group(task.status)
    if group is TaskStatus.COMPLETED:
        line = f"{head} — {preview(task.result)}" if task.result.strip() else head
        return f"{line} (review notes: {preview('; '.join(task.notes))})" if task.notes else line
    reason = preview(task.error) if task.error.strip() else "no reason given"
    if group is TaskStatus.FAILED:
        line = f"{head} — failed: {reason}"
        return f"{line} (last result: {preview(task.result)})" if task.result.strip() else line
    if group is TaskStatus.BLOCKED:
        line = f"{head} — blocked: {reason}"
        return f"{line} (partial: {preview(task.result)})" if task.result.strip() else line
    if group_of(task) == "cancelled":
        return f"{head} — cancelled" + (f" (partial: {preview(task.result)})" if task.result.strip() else "")
    return f"{head} — skipped: {reason}"


def task_of_line(line: str) -> tuple[str, str] | None:
    """The (icon, task id) a summary line of ``task_line`` starts with, or
    None for the header, a note or an earlier version's line."""
    icon, _, rest = line.partition(" ")
    task_id, colon, _ = rest.partition(": ")
    if icon not in _ICONS or not colon or not task_id or " " in task_id:
        return None
    return icon, task_id


def summarize(plan: Plan, status: PlanStatus, *, replans: int = 0, note: str = "") -> str:
    """Header with the counts, then one line per task (completed first)."""
    tally = counts(plan)
    parts = ", ".join(f"{n} {name}" for name, n in tally.items() if n)
    # Team plans are made of steps (P-5.10), /plan plans of tasks.
    team = bool(plan.tasks) and all(task.id.startswith("step_") for task in plan.tasks)
    noun = "step" if team else "task"
    count = len(plan.tasks)
    header = f"{'Team run' if team else 'Plan'} {status.value}: {count} {noun}{'s' if count != 1 else ''}"
    header += f" — {parts}" if parts else ""
    if replans:
        header += f" (after {replans} replan{'s' if replans != 1 else ''})"
    lines = [header]
    if note:
        lines.append(note)
    order = {tid: i for i, tid in enumerate(plan.topological_order())}
    for group in _GROUPS:
        members = [task for task in plan.tasks if group_of(task) == group]
        members.sort(key=lambda task: order.get(task.id, len(order)))
        lines.extend(task_line(task) for task in members)
    return "\n".join(lines)


def earlier_versions(history: Sequence[Plan]) -> str:
    """Lines for the work done in plan versions that a replan replaced."""
    lines: list[str] = []
    for version, plan in enumerate(history, start=1):
        done = [task for task in plan.tasks if task.status in (TaskStatus.COMPLETED, TaskStatus.FAILED)]
        if done:
            lines.append(f"Plan version {version} (replaced by a replan):")
            lines.extend("  " + task_line(task) for task in done)
    return "\n".join(lines)


def final_answer(plan: Plan) -> str:
    """The run's answer in full: the result of each completed task that no
    other task depends on (the plan's ends), in topological order. Several
    ends are each headed by their id and description."""
    ends = [
        plan.task(task_id)
        for task_id in plan.topological_order()
        if not plan.dependents(task_id) and plan.task(task_id).status is TaskStatus.COMPLETED
    ]
    ends = [task for task in ends if task.result.strip()]
    if len(ends) == 1:
        return ends[0].result.strip()
    return "\n\n".join(f"**{task.id}: {task.description}**\n\n{task.result.strip()}" for task in ends)
