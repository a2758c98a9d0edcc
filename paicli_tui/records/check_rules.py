"""The verify rules for a plan's checks: a step whose check failed is never
approved, and a task whose latest check failed is neither merged nor
recorded as completed."""

from __future__ import annotations

from paicli_tui.records.ledger import LedgerLine
from paicli_tui.records.plan_state import PlanState
from paicli_tui.records.rules import Rule, _p


class CheckedWork(Rule):
    name, text = "check-failed", "no step approved, no task merged or completed, whose check failed"

    def __init__(self, kind):
        super().__init__(kind)
        self.failed: set[tuple[str, int]] = set()  # (task, attempt) whose check failed
        self.latest: dict[str, tuple[int, bool]] = {}  # task → (attempt, passed) of its latest check

    def check(self, line: LedgerLine, plan: PlanState):
        p = _p(line)
        task = str(p.get("task_id") or p.get("step_id") or "")
        attempt = int(p.get("attempt") or 0)
        if line.event == "check_ran":
            if p.get("passed") is not True:
                self.failed.add((task, attempt))
            self.latest[task] = (attempt, p.get("passed") is True)
        elif line.event == "plan_version" and p.get("origin") == "replan":
            self.failed.clear()  # ids restart with the new plan
            self.latest.clear()
        elif line.event == "review_verdict" and p.get("approved") is True and (task, attempt) in self.failed:
            return self.v(line, f"{task} attempt {attempt} approved although its check failed")
        elif line.event == "task_merged" and self._failed_last(task):
            return self.v(line, f"{task} merged although its latest check failed")
        elif line.event == "status" and p.get("status") == "COMPLETED" and self._failed_last(task):
            return self.v(line, f"{task} completed although its latest check failed")
        return []

    def _failed_last(self, task: str) -> bool:
        latest = self.latest.get(task)
        return latest is not None and not latest[1]
