"""The planner agent: goal → plan, amendment → revised plan, failure → replan
(P-4.1, P-4.2, P-4.6).

Every call is two messages (the planner system prompt and one user message
opening with the turn context) and offers no tools. A reply that breaks a
P-3.2 rule raises ``PlanError`` for the person to see: no silent retry and no
fallback to a ReAct turn, because a guessed plan would run work nobody
reviewed.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable, Protocol

from paicli_tui.events import EventBus, PlanProposed, PlanRejected
from paicli_tui.llm.types import ChatResult
from paicli_tui.plan.executor import Replanner
from paicli_tui.plan.model import Plan, Task, TaskStatus
from paicli_tui.plan.parser import PlanError, parse_plan
from paicli_tui.prompt_assembler import with_turn_context

TOOL_CALL_ERROR = "planner answered with tool calls; this role has no tools; tool call not executed"


class PlannerToolCallError(PlanError):
    """The planner (a tool-less role) answered with tool calls (P-5.3)."""


class ChatClientLike(Protocol):
    def chat(self, messages: list[dict], *, agent: str, tools: Any = None, cancel: Any = None,
             **options: Any) -> ChatResult: ...


class SystemPrompts(Protocol):
    def system_prompt(self, role: str) -> str: ...


class Planner:
    def __init__(
        self,
        client: ChatClientLike,
        assembler: SystemPrompts,
        *,
        agent: str = "planner",
        role: str = "planner",
        id_prefix: str = "task",
        bus: EventBus | None = None,
        deadline: Callable[[], float | None] | None = None,
    ) -> None:
        self.client = client
        #: The run's time limit (``RunBudget.deadline``): a slow planner call
        #: is cut there like any agent's.
        self.deadline = deadline
        self.assembler = assembler
        self.agent = agent
        self.role = role
        self.id_prefix = id_prefix
        self.bus = bus
        #: The number of the last plan version this planner proposed.
        self.version = 0

    def create(self, goal: str, cancel: threading.Event | None = None) -> Plan:
        plan = self._ask(f"Make a plan for: {goal}", "initial", cancel)
        plan.goal = goal
        self._propose(plan, "initial")
        return plan

    def revise(self, plan: Plan, goal: str, amendment: str, cancel: threading.Event | None = None) -> Plan:
        """The full revised plan; its goal becomes ``GOAL\\nAmendment: …``."""
        text = (
            f"Goal: {goal}\n\n"
            f"Current plan (JSON):\n{json.dumps(plan.to_dict(), indent=2, ensure_ascii=False)}\n\n"
            "Change only what the amendment below affects, keep every other task exactly as it is, "
            "and return the full revised plan in the same format.\n"
            f"Amendment: {amendment}"
        )
        revised = self._ask(text, "amendment", cancel)
        revised.goal = f"{goal}\nAmendment: {amendment}"
        self._propose(revised, "amendment")
        return revised

    def replan(
        self, goal: str, plan: Plan, failed_task: Task, reason: str, cancel: threading.Event | None = None
    ) -> Plan:
        """A new plan for the remaining work. Not announced here: the executor
        publishes the replan version when it adopts it."""
        revised = self._ask(replan_message(goal, plan, failed_task, reason), "replan", cancel)
        revised.goal = goal
        return revised

    def replanner(self, goal: str, cancel: threading.Event | None = None) -> Replanner:
        """``replan`` shaped for ``PlanExecutor(replanner=…)``."""

        def replan(plan: Plan, failed_task: Task, reason: str) -> Plan:
            return self.replan(goal, plan, failed_task, reason, cancel)

        return replan

    def _ask(self, text: str, origin: str, cancel: threading.Event | None) -> Plan:
        messages = [
            {"role": "system", "content": self.assembler.system_prompt(self.role)},
            {"role": "user", "content": with_turn_context(text)},
        ]
        ends = self.deadline() if self.deadline is not None else None
        options = {"deadline": ends} if ends is not None else {}
        reply = self.client.chat(messages, agent=self.agent, tools=None, cancel=cancel, **options)
        try:
            if reply.tool_calls:
                raise PlannerToolCallError(TOOL_CALL_ERROR)
            return parse_plan(reply.content, self.id_prefix)
        except PlanError as exc:
            if self.bus is not None:
                self.bus.publish(PlanRejected(self.agent, origin, str(exc)))
            raise

    def announce(self, plan: Plan, origin: str) -> None:
        """Publish a plan version this planner did not write itself: a plan
        file (``file``) or a hand edit from the review screen (``edit``)."""
        self._propose(plan, origin)

    def _propose(self, plan: Plan, origin: str) -> None:
        self.version += 1
        if self.bus is not None:
            self.bus.publish(PlanProposed(self.agent, self.version, origin, plan.goal, plan.to_dict()))


def replan_message(goal: str, plan: Plan, failed_task: Task, reason: str) -> str:
    """The replan request: the goal, what completed (with full results), what
    failed and why. The new plan cannot depend on old ids, so the planner is
    told to carry what a new task needs into its description."""
    lines = [f"Goal: {goal}", "", f"Executing the plan below, task {failed_task.id} failed.", f"Failure reason: {reason}", ""]
    done = [task for task in plan.tasks if task.status is TaskStatus.COMPLETED]
    lines.append("Completed tasks and their results:" if done else "Completed tasks: none")
    for task in done:
        lines += [f"- {task.id}: {task.description}", "  Result:", task.result or "(no result)"]
    lines += ["", "The plan as it stood (JSON, with statuses):", json.dumps(_with_statuses(plan), indent=2, ensure_ascii=False)]
    lines += [
        "",
        "Make a new plan for the remaining work only. Completed tasks are done: do not repeat them. "
        "A task of the new plan sees only the results of its dependencies in the new plan, so write into "
        "its description whatever it needs from the completed results above. Avoid what made "
        f"{failed_task.id} fail. Return the full new plan in the same format.",
    ]
    return "\n".join(lines)


def _with_statuses(plan: Plan) -> dict:
    data = plan.to_dict()
    for entry, task in zip(data["tasks"], plan.tasks):
        entry["status"] = task.status.value
        if task.error:
            entry["error"] = task.error
    return data
