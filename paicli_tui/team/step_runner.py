"""One team step from dispatch to verdict (P-5.4–P-5.9): worker attempt →
report → fail-closed review → retry with the feedback, at most twice.

A report or verdict the strict reader rejects is sent back to its author
with the exact error, at most ``repairs`` times (issue 16); a report still
invalid fails the step, a verdict still unreadable is a rejection."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable

from paicli_tui.executors import Executor, LocalExecutor, TurnJob, run_turn
from paicli_tui.events import (
    EventBus,
    RepairRequested,
    ReviewStarted,
    ReviewVerdictGiven,
    StepRetry,
    TaskDispatched,
    WorkerReportParsed,
)
from paicli_tui.llm.role_client import repair_request, truncated
from paicli_tui.plan.executor import TaskOutcome
from paicli_tui.plan.model import Plan, Task
from paicli_tui.prompting.assembler import with_turn_context
from paicli_tui.team.checks import run_task_check
from paicli_tui.team.messages import AgentMessage, MessageType
from paicli_tui.team.receipts import MAX_COMMANDS, Receipts, ReceiptTracker
from paicli_tui.team.step_context import retry_message, review_message, step_message
from paicli_tui.team.structured import UNREADABLE, StructuredReplyError, WorkerReport, parse_worker_report
from paicli_tui.team.subagent import SubAgent, feedback_message, task_message
from paicli_tui.tools.trusted_urls import BranchUrls, flatten

if TYPE_CHECKING:
    from paicli_tui.hooks.runner import HookRunner
    from paicli_tui.team.receipts import Receipts
    from paicli_tui.tools.trusted_urls import TrustedUrls
    from paicli_tui.workspace.resolver import TaskIsolation
    from paicli_tui.workspace.run import Attempt

#: The first attempt plus at most two retries (P-5.7).
MAX_ATTEMPTS = 3


def reviews_in_parallel(plan: Plan, workers: int) -> bool:
    """True when two steps of ``plan`` can be reviewed at once: more than one
    worker and a round with more than one step. Then every step of the run
    gets its own ``reviewer-step_K`` (P-5.2), the lone last step of a run
    included, so one run never mixes the two names; a run whose steps can
    only go one at a time uses the one ``reviewer``. Decided from the plan,
    not from which steps happened to overlap: the last step used to get
    ``reviewer`` only because it ran alone (issue 14)."""
    return workers > 1 and any(len(round_) > 1 for round_ in plan.batches())


class StepRunner:
    """The plan executor's TaskRunner for team steps. The executor hands each
    step a free worker name and never gives one worker two steps at once."""

    def __init__(
        self,
        *,
        goal: str,
        workers: dict[str, SubAgent],
        reviewer: Callable[[str], SubAgent],
        bus: EventBus,
        trusted_urls: "TrustedUrls",
        repairs: int = 0,
        report_format: dict | None = None,
        recall: Callable[[str, str, str], str] | None = None,
        isolation: "TaskIsolation | None" = None,
        hooks: "HookRunner | None" = None,
        resumed_attempts: dict[str, tuple[int, str]] | None = None,
        executor: Executor | None = None,
    ) -> None:
        """With ``isolation`` every attempt works in its own tree from the
        run's current integration state, the reviewer sees the attempt's
        diff, and only approved work is merged back. ``resumed_attempts``:
        steps an interrupted run was on, each with the attempt it had
        reached and the review feedback that attempt was sent with; such a
        step goes on at that attempt, so a resume never grants new retries.
        ``executor`` decides where a worker's turns run (here by default);
        reviews run here."""
        self.executor = executor or LocalExecutor()
        self.goal = goal
        self.isolation = isolation
        #: TaskCompleted hooks check a completed report before the reviewer does.
        self.hooks = hooks
        self.recall = recall
        self.repairs = repairs
        self.report_format = report_format
        self.workers = workers
        self.reviewer = reviewer
        self.bus = bus
        self.trusted_urls = trusted_urls
        self.branch_urls = BranchUrls()
        self._parallel: tuple[Plan, bool] | None = None  # (plan, reviews_in_parallel) of the plan running
        self._resumed = dict(resumed_attempts or {})
        self._resumed_lock = threading.Lock()

    def __call__(self, task: Task, plan: Plan, worker_name: str, cancel: threading.Event) -> TaskOutcome:
        worker = self.workers[worker_name]
        worker.agent.task_label = f"{task.id}: {task.description}"
        registry = worker.agent.registry
        try:
            return self._run(task, plan, worker, cancel)
        finally:
            worker.agent.registry = registry
            worker.turns = None
            worker.clear_history()  # the step boundary (P-5.4)
            worker.agent.task_label = ""

    def _begin(self, task: Task, worker: SubAgent, registry) -> "Attempt | None":
        """A clean tree for the next attempt (a rejected one is thrown away)
        and the worker's tools pointed at it."""
        if self.isolation is None:
            return None
        attempt = self.isolation.attempt(task.id, worker.name)
        if registry is not None:
            worker.agent.registry = registry.for_root(attempt.path, attempt.journal)
        run, agent = self.isolation.run, worker.agent
        worker.turns = lambda text, cancel, trusted: run_turn(
            self.executor, TurnJob(task.id, agent, text, trusted, attempt, run), cancel, self.bus)
        return attempt

    def reviewer_name(self, plan: Plan, step_id: str) -> str:
        if self._parallel is None or self._parallel[0] is not plan:
            self._parallel = (plan, reviews_in_parallel(plan, len(self.workers)))
        return f"reviewer-{step_id}" if self._parallel[1] else "reviewer"

    def _run(self, task: Task, plan: Plan, worker: SubAgent, cancel: threading.Event) -> TaskOutcome:
        inherited = self.branch_urls.inherited(plan, task)
        branch = self.trusted_urls.fork(flatten(inherited))
        text = step_message(self.goal, plan, task, inherited)
        if self.recall is not None:
            text = self.recall(text, f"{self.goal}\n{task.description}", worker.name)
        last_result = feedback = ""
        with self._resumed_lock:
            first, feedback = self._resumed.pop(task.id, (1, ""))
        first = min(max(first, 1), MAX_ATTEMPTS)
        if first > 1:
            # The interrupted attempt is made again as it was: the same number, the same review feedback.
            self._retry(worker, task, first, feedback)
            text = f"{text}\n\n{retry_message(feedback)}"
        message = task_message(with_turn_context(text))
        registry = worker.agent.registry
        for attempt in range(first, MAX_ATTEMPTS + 1):
            tree = self._begin(task, worker, registry)
            tracker = ReceiptTracker(self.bus, worker.name)
            # A cancel marks only what it interrupted (issue 14): a reply, a
            # report or an approval that arrived before it still counts.
            try:
                reply = worker.send(message, cancel=cancel, trusted_urls=branch)
            finally:
                receipts = tracker.close()
            if reply.type is MessageType.ERROR:
                if cancel.is_set():
                    return TaskOutcome("cancelled", last_result, "cancelled")
                return TaskOutcome("failed", last_result, f"{worker.name}: {reply.content}")
            if reply.type is MessageType.PARTIAL and not reply.content.strip():
                # Stopped by a limit with no summary: no time or tokens were
                # left to ask the model, so paicli reports what it saw.
                result, reason = evidence_report(receipts)
                self._report(worker, task, attempt, "blocked", result, reason)
                return TaskOutcome("blocked", result, reason)
            report = self._read_report(worker, task, attempt, reply, cancel)
            if isinstance(report, TaskOutcome):
                return report
            self._report(worker, task, attempt, report.status, report.result or "", report.reason or "")
            if report.status == "blocked":
                return TaskOutcome("blocked", report.result or "", report.reason or "")
            last_result = report.result or ""
            if cancel.is_set():  # finished work, but no review may pass it now (fail-closed)
                return TaskOutcome("cancelled", last_result, "cancelled")
            changed = self.isolation.run.commit(tree) if tree is not None else None
            changes = self._changes(tree, changed)
            # The plan's check and the configured hooks are cheaper than a
            # reviewer call: a failing one sends the step back without a review.
            receipts.check = run_task_check(task, worker.agent.registry, attempt, actor=worker.name, bus=self.bus,
                                            cancel=cancel)
            blocked, context = (None, "") if receipts.check is not None and not receipts.check.passed \
                else self._check(task, worker, attempt, last_result, cancel)
            if receipts.check is not None and not receipts.check.passed:
                self.bus.publish(receipts.event(worker.name, task, attempt, ""))
                if cancel.is_set():
                    return TaskOutcome("cancelled", last_result, "cancelled")
                feedback = f"check: {receipts.check.receipt()}"
                if attempt < MAX_ATTEMPTS:
                    self._retry(worker, task, attempt + 1, feedback)
                    message = feedback_message(receipts.check.feedback())
                continue
            if blocked is not None:
                feedback = f"hook: {blocked}"
            else:
                reviewed = f"{last_result}\n\n[checks]\n{context}" if context else last_result
                verdict = self._review(plan, task, attempt, reviewed, cancel, changes, receipts)
                if verdict.type is MessageType.APPROVAL:
                    settled = self._merge(task, tree, changed, cancel)
                    if settled is None or settled.status in ("merged", "empty", "dropped"):
                        self.branch_urls.record(task.id, flatten(inherited), branch.found_urls)
                        notes = verdict.notes
                        if settled is not None and settled.status == "dropped":
                            notes = (*notes, "its changes were dropped after a merge conflict")
                        return TaskOutcome("completed", last_result, notes=notes)
                    if settled.status == "cancelled":
                        return TaskOutcome("cancelled", last_result, "cancelled")
                    if settled.status == "failed" or attempt == MAX_ATTEMPTS:
                        return TaskOutcome("failed", last_result, settled.error or "merge conflict")
                    self._retry(worker, task, attempt + 1, "merge conflict")
                    message = feedback_message(settled.feedback)
                    continue
                if cancel.is_set():
                    return TaskOutcome("cancelled", last_result, "cancelled")
                if verdict.type is MessageType.ERROR:
                    return TaskOutcome("failed", last_result, f"review failed: {verdict.content}")
                feedback = verdict.content
            if attempt < MAX_ATTEMPTS:
                self._retry(worker, task, attempt + 1, feedback)
                message = feedback_message(retry_message(feedback))
        if feedback.startswith("check: "):
            return TaskOutcome("failed", last_result, f"its check failed {MAX_ATTEMPTS} times; last: {feedback[7:]}")
        reason = f"rejected by review {MAX_ATTEMPTS} times; last feedback: {feedback}"
        return TaskOutcome("failed", last_result, reason)

    def _check(self, task: Task, worker: SubAgent, attempt: int, result: str,
               cancel: threading.Event) -> tuple[str | None, str]:
        """TaskCompleted hooks on a completed report: (the reason one
        failed it, or None; the context the others added)."""
        if self.hooks is None or not self.hooks.matching("TaskCompleted", "team"):
            return None, ""
        verdict = self.hooks.run("TaskCompleted", {
            "kind": "team", "task_id": task.id, "description": task.description, "type": task.type.value,
            "goal": self.goal, "attempt": attempt, "worker": worker.name, "result": result,
        }, match="team", actor=worker.name, cancel=cancel)
        return (verdict.reason if verdict.blocked else None), verdict.context

    def _read_report(
        self, worker: SubAgent, task: Task, attempt: int, reply: AgentMessage, cancel: threading.Event
    ) -> WorkerReport | TaskOutcome:
        """The worker's report, repaired up to ``repairs`` times; the step's
        outcome when it cannot be had."""
        for repair in range(1, self.repairs + 2):
            cut_at = worker.truncated_at()
            try:
                if cut_at is not None:
                    raise StructuredReplyError(truncated("worker report", cut_at))
                return parse_worker_report(reply.content)
            except StructuredReplyError as exc:
                error = str(exc)
            self._report(worker, task, attempt, "invalid", reply.content, error)
            if repair > self.repairs:
                return TaskOutcome("failed", reply.content, f"invalid worker report: {error}")
            self.bus.publish(RepairRequested(worker.name, "report", repair, error, task.id, attempt))
            reply = worker.correct(repair_request(error), cancel=cancel, response_format=self.report_format)
            if reply.type is MessageType.ERROR:
                if cancel.is_set():
                    return TaskOutcome("cancelled", "", "cancelled")
                return TaskOutcome("failed", "", f"{worker.name}: {reply.content}")
        raise AssertionError("unreachable: the last attempt returns")

    def _retry(self, worker: SubAgent, task: Task, attempt: int, feedback: str) -> None:
        """The executor dispatched attempt 1; a retry stays on the same worker
        (the step is still RUNNING) and is announced here with its number."""
        self.bus.publish(StepRetry(worker.name, task.id, attempt, feedback))
        self.bus.publish(TaskDispatched(task.id, task.id, worker.name, attempt))

    def _report(self, worker: SubAgent, task: Task, attempt: int, status: str, result: str, reason: str) -> None:
        self.bus.publish(WorkerReportParsed(worker.name, task.id, attempt, status, result, reason))

    def _changes(self, tree: "Attempt | None", result: str | None) -> str | None:
        """The attempt's diff for the reviewer; None without isolation."""
        if tree is None or result is None or self.isolation is None:
            return None
        return self.isolation.diff(tree, result)

    def _merge(self, task: Task, tree: "Attempt | None", result: str | None, cancel: threading.Event):
        if tree is None or self.isolation is None:
            return None
        return self.isolation.settle(tree, task.description, cancel, result=result)

    def _review(self, plan: Plan, task: Task, attempt: int, result: str, cancel: threading.Event,
                changes: str | None = None, receipts: "Receipts | None" = None) -> AgentMessage:
        """Ask a reviewer with a fresh history; its history is cleared again
        after the review whatever happened (P-5.6). It gets the receipts."""
        reviewer = self.reviewer(self.reviewer_name(plan, task.id))
        self.bus.publish(ReviewStarted(reviewer.name, task.id, attempt))
        evidence = receipts.text(task) if receipts is not None else ""
        if receipts is not None:
            diff_chars = len(changes) if changes else 0
            self.bus.publish(receipts.event(reviewer.name, task, attempt, reviewer.name, diff_chars))
        try:
            request = review_message(self.goal, task, result, changes, evidence)
            verdict = reviewer.send(task_message(request), cancel=cancel)
            for repair in range(1, self.repairs + 1):
                error = _unreadable(reviewer, verdict)
                if error is None or cancel.is_set():
                    break
                # Recorded as what it is until repaired: a rejection (fail-closed).
                self.bus.publish(ReviewVerdictGiven(reviewer.name, task.id, attempt, False, verdict.content))
                self.bus.publish(RepairRequested(reviewer.name, "verdict", repair, error, task.id, attempt))
                verdict = reviewer.correct(repair_request(error), cancel=cancel)
        finally:
            reviewer.clear_history()
        if verdict.type in (MessageType.APPROVAL, MessageType.REJECTION):
            approved = verdict.type is MessageType.APPROVAL
            self.bus.publish(ReviewVerdictGiven(reviewer.name, task.id, attempt, approved, verdict.content, verdict.notes))
        return verdict


#: How a report paicli wrote in the worker's place begins.
BY_PAICLI = "report written by paicli, not the model"


def evidence_report(receipts: Receipts) -> tuple[str, str]:
    """(result, reason) of a stopped worker that gave no report, from the
    tool calls paicli saw it make."""
    lines = [f"{BY_PAICLI}: {receipts.tool_calls} tool call{'' if receipts.tool_calls == 1 else 's'}"]
    lines += [f"- {run.line()}" for run in receipts.commands[-MAX_COMMANDS:]]
    return "\n".join(lines), f"{BY_PAICLI}: the worker was stopped by a limit before it reported"


def _unreadable(reviewer: SubAgent, verdict: AgentMessage) -> str | None:
    """Why a verdict could not be read (the error to send back), or None for
    a verdict that was read, whatever it says."""
    if verdict.type is not MessageType.REJECTION or not verdict.content.startswith(UNREADABLE):
        return None
    cut_at = reviewer.truncated_at()
    return truncated("review verdict", cut_at) if cut_at is not None else verdict.content
