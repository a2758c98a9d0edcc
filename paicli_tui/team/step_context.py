"""What a team worker and a reviewer are told about a step (P-5.7, P-5.9),
and which found URLs each completed step passes down (P-6.6)."""

from __future__ import annotations

import threading
from collections.abc import Iterable

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


def review_message(goal: str, task: Task, result: str) -> str:
    """The reviewer sees the step and the worker's result only (fresh history)."""
    return "\n".join(
        [
            f"Goal: {goal}",
            "",
            f"Step {task.id} [{task.type.value}]:",
            task.description,
            "",
            "Result reported by the worker:",
            result,
        ]
    )


class BranchUrls:
    """URLs a completed step passes down to the steps that depend on it.

    A step's branch is its own ``web_search`` finds plus what its completed
    direct dependencies passed down to it; nothing is recorded for a step
    that did not complete, so its finds reach nobody. Thread-safe: steps
    finish on different worker threads.
    """

    def __init__(self) -> None:
        self._by_step: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def inherited(self, plan: Plan, task: Task) -> dict[str, list[str]]:
        """URLs each completed direct dependency of ``task`` passed down."""
        with self._lock:
            return {
                dep: list(self._by_step.get(dep, []))
                for dep in task.dependencies
                if plan.task(dep).status is TaskStatus.COMPLETED
            }

    def record(self, step_id: str, inherited: Iterable[str], found: Iterable[str]) -> None:
        urls = list(dict.fromkeys([*inherited, *found]))
        with self._lock:
            self._by_step[step_id] = urls

    def passed_down(self, step_id: str) -> list[str]:
        with self._lock:
            return list(self._by_step.get(step_id, []))


def flatten(passed_down: dict[str, list[str]]) -> list[str]:
    """All inherited URLs once each, in dependency order."""
    return list(dict.fromkeys(url for urls in passed_down.values() for url in urls))
