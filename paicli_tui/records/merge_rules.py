"""The verify rule for isolated runs: only committed, approved work was
merged, the merges chain from the run's start state, and a task that did
not succeed merged nothing. Commit ids only: the ledger never holds file
content, so a tampered id is caught by the chain, not by reading files."""

from __future__ import annotations

from paicli_tui.records.ledger import LedgerLine
from paicli_tui.records.plan_state import PlanState
from paicli_tui.records.rules import Rule, _p

_NOT_SUCCEEDED = ("FAILED", "BLOCKED", "SKIPPED")


class MergeRecords(Rule):
    name, text = "merge-records", "only committed and approved work merged, in one chain from the start state"

    def __init__(self, kind):
        super().__init__(kind)
        self.head = ""  # the integration head the next merge must start from
        self.committed: dict[tuple[str, int], str] = {}  # (task, attempt) → result
        self.approved: set[tuple[str, int]] = set()
        self.merged: set[str] = set()
        self.start = ""
        self.merges: dict[str, str] = {}  # merge commit → task

    def check(self, line: LedgerLine, plan: PlanState):
        p = _p(line)
        task = str(p.get("task_id") or p.get("step_id") or "")  # a verdict names its step
        attempt = int(p.get("attempt") or 0)
        if line.event == "workspace_snapshot":
            self.head = str(p.get("start") or "")
            self.start, self.merges = self.head, {}
        elif line.event == "run_resumed" and p.get("integration"):
            return self._resumed(line, p)
        elif line.event == "task_committed":
            self.committed[(task, attempt)] = str(p.get("result") or "")
        elif line.event == "review_verdict" and p.get("approved") is True:
            self.approved.add((task, attempt))
        elif line.event == "task_merged":
            return self._merge(line, p, task, attempt, plan)
        elif line.event == "status" and p.get("status") in _NOT_SUCCEEDED and task in self.merged:
            return self.v(line, f"{task} is {p.get('status')} but its work was merged")
        return []

    def _resumed(self, line, p):
        """A resumed run goes on from the start or from a merge of work it keeps."""
        head, kept = str(p.get("integration")), {str(t) for t in p.get("kept") or []}
        problems = []
        if head != self.start and self.merges.get(head) not in kept:
            problems.append(f"resumed from {head[:12]}, which is not the start nor a merge of a kept task")
        self.head = head
        self.merged -= {str(t) for t in p.get("redone") or []}
        return [v for problem in problems for v in self.v(line, problem)]

    def _merge(self, line, p, task: str, attempt: int, plan: PlanState):
        into, result, merge = str(p.get("into") or ""), str(p.get("result") or ""), str(p.get("merge") or "")
        problems = []
        if self.committed.get((task, attempt)) != result:
            problems.append(f"merged {result[:12] or 'nothing'} which is not what {task} attempt {attempt} committed")
        if self.kind == "team" and (task, attempt) not in self.approved:
            problems.append(f"merged {task} attempt {attempt} without an approving review_verdict")
        if self.head and into != self.head:
            problems.append(f"merged into {into[:12]} but the integration head was {self.head[:12]}")
        if plan.status.get(task) in ("COMPLETED", *_NOT_SUCCEEDED):
            problems.append(f"merged {task} after it was {plan.status.get(task)}")
        self.head = merge
        self.merged.add(task)
        self.merges[merge] = task
        return [v for problem in problems for v in self.v(line, problem)]
