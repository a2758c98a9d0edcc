"""How one /plan task runs (P-4.5), beside the team's step runner: a fresh
ReAct agent with the task prompt for the task's type, a first user message
with the goal, the task and its direct dependencies' results, the URLs the
branch found passed down to dependents, and the outcome as the plan
executor expects it. The session composes it; it builds no agent itself."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable

from paicli_tui.events import StepRetry, TaskDispatched
from paicli_tui.executors import Executor, LocalExecutor, TurnJob, run_turn
from paicli_tui.hooks.task_check import MAX_ATTEMPTS, checked_turns
from paicli_tui.plan.context import task_message
from paicli_tui.plan.executor import TaskOutcome
from paicli_tui.prompting.assembler import with_turn_context
from paicli_tui.team.checks import run_task_check
from paicli_tui.team.receipts import Receipts, ReceiptTracker
from paicli_tui.tools.trusted_urls import BranchUrls, TrustedUrls, flatten

if TYPE_CHECKING:
    from paicli_tui.agent.loop import Agent
    from paicli_tui.events import EventBus
    from paicli_tui.hooks.runner import HookRunner
    from paicli_tui.workspace.resolver import TaskIsolation
    from paicli_tui.plan.model import Plan, Task

#: (agent name, task type) → a new agent with the task prompt.
TaskAgentFactory = Callable[[str, str], "Agent"]
#: (message, query, agent name) → the message with recalled facts.
Recall = Callable[[str, str, str], str]


class PlanTaskRunner:
    """The plan executor's ``run_task`` for /plan: called on a worker
    thread per task, so it keeps no per-task state of its own."""

    def __init__(self, goal: str, new_agent: TaskAgentFactory, recall: Recall, trusted: TrustedUrls,
                 isolation: "TaskIsolation | None" = None, hooks: "HookRunner | None" = None,
                 bus: "EventBus | None" = None, executor: Executor | None = None) -> None:
        """With ``isolation`` each task works in its own tree and its work is
        merged back when it completes; a conflict it cannot merge is re-run
        on top, dropped or failed as the resolver decides. TaskCompleted
        ``hooks`` check a finished turn first: a failing one sends its
        reason back to the task's agent. ``executor`` decides where each
        turn of a task's agent runs (here by default)."""
        self.executor = executor or LocalExecutor()
        self.isolation = isolation
        self.hooks = hooks if bus is not None else None
        self.bus = bus
        self.goal = goal
        self.new_agent = new_agent
        self.recall = recall
        self.trusted = trusted
        self.branch_urls = BranchUrls()

    def _turns(self, task: "Task", agent: "Agent", tree, branch, cancel: threading.Event):
        """One turn of the task's agent in ``tree``, where the executor runs it."""
        run = self.isolation.run if self.isolation is not None else None
        bus = self.bus if self.bus is not None else agent.bus
        return lambda text: run_turn(self.executor, TurnJob(task.id, agent, text, branch, tree, run), cancel, bus)

    def __call__(self, task: "Task", plan: "Plan", worker: str, cancel: threading.Event) -> TaskOutcome:
        agent = self.new_agent(task.id, task.type.value)
        agent.task_label = task.description
        inherited = self.branch_urls.inherited(plan, task)
        branch = self.trusted.fork(flatten(inherited))
        message = self.recall(task_message(self.goal, plan, task, inherited),
                              f"{self.goal}\n{task.description}", task.id)
        registry = agent.registry
        note = ""
        while True:
            tree = self.isolation.attempt(task.id, worker) if self.isolation is not None else None
            if tree is not None and registry is not None:
                agent.registry = registry.for_root(tree.path, tree.journal)
            turn = self._turns(task, agent, tree, branch, cancel)
            outcome, failed = self._checked(task, agent, turn, with_turn_context(message), worker, cancel)
            if failed is not None:
                return failed
            if outcome.failed_check:
                return TaskOutcome("failed", outcome.text, f"hook: {outcome.failed_check}")
            if outcome.status not in ("final", "partial"):
                break
            settled = self.isolation.settle(tree, task.description, cancel) if tree is not None else None
            if settled is not None and settled.status == "rerun":
                message = settled.feedback  # the same agent goes on, with its history, on the new base
                continue
            if settled is not None and settled.status == "cancelled":
                return TaskOutcome("cancelled", "", "cancelled")
            if settled is not None and settled.status == "failed":
                return TaskOutcome("failed", outcome.text, settled.error)
            if settled is not None and settled.status == "dropped":
                note = "its changes were dropped after a merge conflict"
            break
        return self._outcome(task, outcome, inherited, branch, note)

    def _checked(self, task: "Task", agent: "Agent", turn, first: str, worker: str, cancel: threading.Event):
        """The task's turns (``turn`` runs one where the executor runs it;
        the check runs here, in the tree the turn's result came back to),
        its hooks and its plan check: a failing check
        sends its command, exit code and output back to the same agent,
        at most MAX_ATTEMPTS turns in all. (the last outcome, the failed
        TaskOutcome when the check never passed)."""
        feedback = first
        for attempt in range(1, MAX_ATTEMPTS + 1):
            tracker = ReceiptTracker(self.bus, task.id) if self.bus is not None else None
            try:
                outcome = checked_turns(
                    self.hooks, lambda text=feedback: turn(text), turn,
                    task=task, goal=self.goal, worker=worker, bus=self.bus, cancel=cancel)  # type: ignore[arg-type]
            finally:
                receipts = tracker.close() if tracker is not None else Receipts()
            if outcome.status != "final" or outcome.failed_check or cancel.is_set():
                return outcome, None
            receipts.check = run_task_check(task, agent.registry, attempt, actor=task.id, bus=self.bus, cancel=cancel)
            if self.bus is not None:
                self.bus.publish(receipts.event(task.id, task, attempt, ""))
            if receipts.check is None or receipts.check.passed:
                return outcome, None
            if cancel.is_set():
                return outcome, TaskOutcome("cancelled", "", "cancelled")
            if attempt == MAX_ATTEMPTS:
                reason = f"its check failed {MAX_ATTEMPTS} times; last: {receipts.check.receipt()}"
                return outcome, TaskOutcome("failed", outcome.text, reason)
            if self.bus is not None:
                self.bus.publish(StepRetry(task.id, task.id, attempt + 1, f"check: {receipts.check.receipt()}"))
                self.bus.publish(TaskDispatched(task.id, task.id, worker, attempt + 1))
            feedback = receipts.check.feedback()
        raise AssertionError("unreachable: the last attempt returns")

    def _outcome(self, task: "Task", outcome, inherited, branch, note: str) -> TaskOutcome:
        if outcome.status in ("final", "partial"):
            result = outcome.text if outcome.status == "final" else f"[partial: {outcome.reason}]\n{outcome.text}"
            if outcome.context:
                result = f"{result}\n\n[checks]\n{outcome.context}"
            self.branch_urls.record(task.id, flatten(inherited), branch.found_urls)
            return TaskOutcome("completed", result, notes=(note,) if note else ())
        if outcome.status == "cancelled":
            return TaskOutcome("cancelled", "", "cancelled")
        return TaskOutcome("failed", outcome.text, outcome.reason)
