"""The rules `paicli verify` checks (P-8.3, issue 8). Each rule sees every
line of one run, in order, together with the plan state as it stood just
before that line, and answers the violations that line shows.

Occupancy follows the engine: a `dispatch` with attempt 1 starts a task (and
takes its worker), a terminal `status` ends it; a dispatch with a higher
attempt is a team retry of a step already running on the same worker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from paicli_tui.records.ledger import LedgerLine
from paicli_tui.plan.model import TERMINAL_STATUSES
from paicli_tui.records.plan_state import PlanState
from paicli_tui.team.structured import UNREADABLE

MAX_RETRIES = 2
MAX_REPLANS = 2
TOOL_LESS = re.compile(r"^(planner|reviewer)(-.*)?$")
PER_TASK_AGENT = re.compile(r"^task_\d+$")


@dataclass(frozen=True)
class Violation:
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: [{self.rule}] {self.message}"


def _p(line: LedgerLine) -> dict:
    return line.payload if isinstance(line.payload, dict) else {}


def _first_dispatch(line: LedgerLine) -> bool:
    return line.event == "dispatch" and int(_p(line).get("attempt") or 1) == 1


class Rule:
    name = ""
    text = ""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def check(self, line: LedgerLine, plan: PlanState) -> list[Violation]:
        return []

    def v(self, line: LedgerLine, message: str) -> list[Violation]:
        return [Violation(line.number, self.name, message)]


class ReplanFreeze(Rule):
    name, text = "replan-freeze", "no task dispatched after a replan was triggered, until the new plan"
    triggered_at = 0

    def check(self, line, plan):
        if line.event == "replan_triggered":
            self.triggered_at = line.number
        elif line.event == "plan_version" and _p(line).get("origin") == "replan":
            self.triggered_at = 0
        elif _first_dispatch(line) and self.triggered_at:
            return self.v(line, f"{_p(line).get('task_id')} dispatched after the replan triggered at line {self.triggered_at}")
        return []


class Dependencies(Rule):
    name, text = "dependencies", "no dispatch before every dependency completed (latest plan version)"

    def check(self, line, plan):
        if not _first_dispatch(line) or not plan.version:
            return []
        task = str(_p(line).get("task_id"))
        if not plan.knows(task):
            return self.v(line, f"{task} is not a task of plan version {plan.version}")
        if plan.upstream_failure(task):
            return []  # reported by downstream-of-failure
        waiting = [d for d in plan.deps[task] if plan.status.get(d) != "COMPLETED"]
        if waiting:
            states = ", ".join(f"{d} {plan.status.get(d, 'PENDING')}" for d in waiting)
            return self.v(line, f"{task} dispatched before its dependencies completed ({states})")
        return []


class Parallelism(Rule):
    name, text = "parallelism", "never more tasks running at once than the recorded limit"

    def __init__(self, kind):
        super().__init__(kind)
        self.limit: int | None = None
        self.running: set[str] = set()

    def check(self, line, plan):
        p = _p(line)
        if line.event == "run_started":
            self.limit = int(p.get("parallelism") or 0) or None
        elif line.event == "run_resumed" or (line.event == "plan_version" and p.get("origin") == "replan"):
            self.running.clear()
        elif _first_dispatch(line):
            self.running.add(str(p.get("task_id")))
            if self.limit is not None and len(self.running) > self.limit:
                return self.v(line, f"{len(self.running)} tasks running at once, the limit is {self.limit}")
        elif line.event == "status" and p.get("status") in TERMINAL_STATUSES:
            self.running.discard(str(p.get("task_id")))
        return []


class ToolLessRoles(Rule):
    name, text = "tool-less-roles", "planner and reviewer calls never offered tools"

    def check(self, line, plan):
        tools = _p(line).get("tools")
        if line.event == "model_request" and TOOL_LESS.match(line.actor) and tools:
            return self.v(line, f"{line.actor} was offered tools: {', '.join(map(str, tools))}")
        return []


class WorkerExclusive(Rule):
    name, text = "worker-exclusive", "no worker on two steps at once"

    def __init__(self, kind):
        super().__init__(kind)
        self.serving: dict[str, str] = {}  # worker → task

    def check(self, line, plan):
        p = _p(line)
        if line.event == "dispatch":
            task, worker = str(p.get("task_id")), str(p.get("worker"))
            busy_with = self.serving.get(worker)
            if _first_dispatch(line):
                self.serving[worker] = task
                if busy_with is not None and busy_with != task:
                    return self.v(line, f"{worker} given {task} while still on {busy_with}")
            elif busy_with != task:
                return self.v(line, f"retry of {task} on {worker}, which is not running it")
        elif line.event == "status" and p.get("status") in TERMINAL_STATUSES:
            task = str(p.get("task_id"))
            self.serving = {w: t for w, t in self.serving.items() if t != task}
        elif line.event == "run_resumed" or (line.event == "plan_version" and p.get("origin") == "replan"):
            self.serving.clear()
        return []


class ReviewApproval(Rule):
    name, text = "review-approval", "every COMPLETED team step approved after its last attempt"

    def __init__(self, kind):
        super().__init__(kind)
        self.last: dict[str, tuple[int, int]] = {}  # step → (attempt, dispatch line)
        self.approved: dict[str, list[tuple[int, int]]] = {}  # step → [(attempt, line)]

    def check(self, line, plan):
        if self.kind != "team":
            return []
        p = _p(line)
        step = str(p.get("task_id") or p.get("step_id") or "")
        if line.event == "dispatch":
            self.last[step] = (int(p.get("attempt") or 1), line.number)
        elif line.event == "review_verdict" and p.get("approved") is True:
            self.approved.setdefault(step, []).append((int(p.get("attempt") or 0), line.number))
        elif line.event == "status" and p.get("status") == "COMPLETED":
            attempt, since = self.last.get(step, (1, 0))
            if not any(a == attempt and at > since for a, at in self.approved.get(step, [])):
                return self.v(line, f"{step} COMPLETED without an approving review_verdict for attempt {attempt}")
        return []


class DownstreamOfFailure(Rule):
    name, text = "downstream-of-failure", "nothing downstream of a FAILED/BLOCKED task ran"

    def check(self, line, plan):
        p = _p(line)
        ran = _first_dispatch(line) or (line.event == "status" and p.get("status") == "COMPLETED")
        if not ran:
            return []
        task = str(p.get("task_id"))
        failed = plan.upstream_failure(task)
        if failed:
            what = "dispatched" if line.event == "dispatch" else "COMPLETED"
            return self.v(line, f"{task} {what} although {failed} upstream is {plan.status.get(failed)}")
        return []


class RetryLimit(Rule):
    name, text = "retry-limit", f"at most {MAX_RETRIES} retries per step"

    def check(self, line, plan):
        attempt = int(_p(line).get("attempt") or 1)
        if line.event == "dispatch" and attempt > MAX_RETRIES + 1:
            return self.v(line, f"{_p(line).get('task_id')} dispatched for attempt {attempt} ({attempt - 1} retries)")
        return []


class ReplanLimit(Rule):
    name, text = "replan-limit", f"at most {MAX_REPLANS} replans per run"
    replans = 0

    def check(self, line, plan):
        if line.event == "replan_triggered":
            self.replans += 1
            if self.replans > MAX_REPLANS:
                return self.v(line, f"replan number {self.replans} triggered")
        return []


class SystemPrompt(Rule):
    name, text = "system-prompt", "the system prompt of one agent instance never changes"

    def __init__(self, kind):
        super().__init__(kind)
        self.first: dict[tuple[str, int], tuple[str, int]] = {}

    def check(self, line, plan):
        if line.event != "model_request":
            return []
        # /plan makes a new agent per task and a replan reuses task ids.
        key = (line.actor, plan.version if PER_TASK_AGENT.match(line.actor) else 0)
        sha = str(_p(line).get("system_sha256", ""))
        seen = self.first.setdefault(key, (sha, line.number))
        if seen[0] != sha:
            return self.v(line, f"{line.actor}'s system prompt differs from its first request at line {seen[1]}")
        return []


class RepairAfterRejection(Rule):
    name, text = "repair-after-rejection", "a repair is asked only of the agent whose reply was just rejected"

    def __init__(self, kind):
        super().__init__(kind)
        # (actor, plan|report|verdict, step, step attempt) → rejections not yet repaired
        self.open: dict[tuple[str, str, str, int], int] = {}

    def check(self, line, plan):
        p = _p(line)
        step, attempt = str(p.get("step_id") or ""), int(p.get("attempt") or 0)
        rejected = None
        if line.event == "plan_rejected":
            rejected = (line.actor, "plan", "", 0)
        elif line.event == "worker_report" and p.get("status") == "invalid":
            rejected = (line.actor, "report", step, attempt)
        elif line.event == "review_verdict" and p.get("approved") is not True \
                and str(p.get("feedback") or "").startswith(UNREADABLE):
            rejected = (line.actor, "verdict", step, attempt)
        if rejected is not None:
            self.open[rejected] = self.open.get(rejected, 0) + 1
        elif line.event == "repair_requested":
            kind = str(p.get("kind"))
            key = (line.actor, kind, step, int(p.get("step_attempt") or 0)) if kind != "plan" else (line.actor, "plan", "", 0)
            if not self.open.get(key):
                where = f" of {step} attempt {key[3]}" if kind != "plan" else ""
                return self.v(line, f"{line.actor} asked to repair a {kind}{where} with no rejection recorded before it")
            self.open[key] -= 1
        return []


class ResumeKeeps(Rule):
    name, text = "resume-keeps", "a resumed run keeps only what completed, and nothing completed runs again"

    def __init__(self, kind):
        super().__init__(kind)
        self.completed: set[str] = set()  # ever, in this run (a plan edited before resuming keeps the same ids)

    def check(self, line, plan):
        p = _p(line)
        if line.event == "status" and p.get("status") == "COMPLETED":
            self.completed.add(str(p.get("task_id")))
        if line.event == "run_resumed":
            found = []
            for task in p.get("kept") or []:
                if str(task) not in self.completed:
                    found += self.v(line, f"{task} kept as completed but it is {plan.status.get(str(task), 'PENDING')}")
            return found
        if _first_dispatch(line) and plan.status.get(str(p.get("task_id"))) == "COMPLETED":
            return self.v(line, f"{p.get('task_id')} dispatched again after it COMPLETED")
        return []


RULES: tuple[type[Rule], ...] = (
    ReplanFreeze, Dependencies, Parallelism, ToolLessRoles, WorkerExclusive,
    ReviewApproval, DownstreamOfFailure, RetryLimit, ReplanLimit, SystemPrompt,
    RepairAfterRejection, ResumeKeeps,
)
