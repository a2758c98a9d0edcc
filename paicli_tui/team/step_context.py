"""What a team worker and a reviewer are told about a step (P-5.7, P-5.9)."""

from __future__ import annotations

from paicli_tui.plan.model import Plan, Task, TaskStatus

#: A dependency's result is cut to this many characters in a step's context.
RESULT_CONTEXT_CHARS = 500
RETRY_PREFIX = "The previous result was rejected by review, reason: "


def cut(text: str, limit: int = RESULT_CONTEXT_CHARS) -> str:
    """The first ``limit`` characters, plus "…" when something was cut."""
    return text if len(text) <= limit else text[:limit] + "…"


def step_message(goal: str, plan: Plan, task: Task, passed_down: dict[str, list[str]]) -> str:
    """The worker's first user message for ``task``: the goal, the step, and
    each COMPLETED direct dependency (description, shortened result, the URLs
    it passed down). Indirect dependencies and siblings are never included."""
    lines = [f"Goal: {goal}", "", f"Your step: {task.id} [{task.type.value}]", task.description, ""]
    completed = [plan.task(dep) for dep in task.dependencies if plan.task(dep).status is TaskStatus.COMPLETED]
    if not completed:
        lines.append("Dependencies: none")
    else:
        lines.append("Completed dependencies:")
        for dep in completed:
            lines.append(f"- {dep.id}: {dep.description}")
            lines.append(f"  Result: {cut(dep.result)}")
            urls = passed_down.get(dep.id, [])
            if urls:
                lines.append("  Trusted URLs passed down: " + ", ".join(urls))
    return "\n".join(lines)


def retry_message(feedback: str) -> str:
    return RETRY_PREFIX + feedback


def review_message(goal: str, task: Task, result: str, changes: str | None = None, evidence: str = "") -> str:
    """The reviewer sees the step, the worker's result and, when the step
    ran in its own tree, the diff of what it changed (fresh history), and
    the evidence paicli gathered (commands, check, tool calls): the
    receipts, not only the worker's word for it."""
    lines = [
        f"Goal: {goal}",
        "",
        f"Step {task.id} [{task.type.value}]:",
        task.description,
        "",
        "Result reported by the worker:",
        result,
    ]
    if changes is not None:
        lines += ["", "Files changed by this step (diff against its base):", changes.rstrip() or "no file changes"]
    if evidence:
        lines += ["", evidence]
    return "\n".join(lines)
