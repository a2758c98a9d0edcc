"""How one /plan task runs (P-4.5), beside the team's step runner: a fresh
ReAct agent with the task prompt for the task's type, a first user message
with the goal, the task and its direct dependencies' results, the URLs the
branch found passed down to dependents, and the outcome as the plan
executor expects it. The session composes it; it builds no agent itself."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable

from paicli_tui.plan.context import task_message
from paicli_tui.plan.executor import TaskOutcome
from paicli_tui.prompting.assembler import with_turn_context
from paicli_tui.tools.trusted_urls import BranchUrls, TrustedUrls, flatten

if TYPE_CHECKING:
    from paicli_tui.agent.loop import Agent
    from paicli_tui.plan.model import Plan, Task

#: (agent name, task type) → a new agent with the task prompt.
TaskAgentFactory = Callable[[str, str], "Agent"]
#: (message, query, agent name) → the message with recalled facts.
Recall = Callable[[str, str, str], str]


class PlanTaskRunner:
    """The plan executor's ``run_task`` for /plan: called on a worker
    thread per task, so it keeps no per-task state of its own."""

    def __init__(self, goal: str, new_agent: TaskAgentFactory, recall: Recall, trusted: TrustedUrls) -> None:
        self.goal = goal
        self.new_agent = new_agent
        self.recall = recall
        self.trusted = trusted
        self.branch_urls = BranchUrls()

    def __call__(self, task: "Task", plan: "Plan", worker: str, cancel: threading.Event) -> TaskOutcome:
        agent = self.new_agent(task.id, task.type.value)
        agent.task_label = task.description
        inherited = self.branch_urls.inherited(plan, task)
        branch = self.trusted.fork(flatten(inherited))
        message = self.recall(task_message(self.goal, plan, task, inherited),
                              f"{self.goal}\n{task.description}", task.id)
        outcome = agent.run_turn(with_turn_context(message), cancel=cancel, trusted_urls=branch)
        if outcome.status in ("final", "partial"):
            result = outcome.text if outcome.status == "final" else f"[partial: {outcome.reason}]\n{outcome.text}"
            self.branch_urls.record(task.id, flatten(inherited), branch.found_urls)
            return TaskOutcome("completed", result)
        if outcome.status == "cancelled":
            return TaskOutcome("cancelled", "", "cancelled")
        return TaskOutcome("failed", outcome.text, outcome.reason)
