"""The first user message of a /plan task (P-4.5).

The goal, the task itself, and for each DIRECT dependency its id, description,
status and full result, and the trusted URLs it passed down (P-6.6). Indirect dependencies and unrelated tasks are left out
on purpose: a direct dependency's result already carries what the task needs,
and everything else would only cost tokens and distract.
"""

from __future__ import annotations

from paicli_tui.plan.model import Plan, Task


def task_message(goal: str, plan: Plan, task: Task, passed_down: dict[str, list[str]] | None = None) -> str:
    lines = [
        f"Goal: {goal}",
        "",
        f"Current task: {task.id} (type {task.type.value})",
        task.description,
        "",
    ]
    if not task.dependencies:
        lines.append("Dependencies: none")
        return "\n".join(lines)
    lines.append("Dependencies:")
    for dep_id in task.dependencies:
        dep = plan.task(dep_id)
        lines.append("")
        lines.append(f"- {dep.id} [{dep.status.value}]: {dep.description}")
        lines.append("  Result:")
        lines.append(dep.result if dep.result else "(no result)")
        urls = (passed_down or {}).get(dep.id, [])
        if urls:
            lines.append("  Trusted URLs passed down: " + ", ".join(urls))
    return "\n".join(lines)
