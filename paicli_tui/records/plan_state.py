"""The plan a run was executing at each ledger line, and its task statuses.

The plan in force is the latest `plan_version` or `run_started` plan; a new
version starts with fresh statuses (replanned ids restart at task_1).

`paicli verify` checks the engine's record against its own rules, so this is
kept to the few facts the rules ask for and read straight from the lines,
apart from the run fold the screen and the report share: a rule must judge
what was written, not what a fold made of it.
"""

from __future__ import annotations

from paicli_tui.plan.model import TaskStatus
from paicli_tui.records.ledger import LedgerLine

FAILED_LIKE = frozenset({TaskStatus.FAILED.value, TaskStatus.BLOCKED.value})


class PlanState:
    def __init__(self) -> None:
        self.version = 0
        self.deps: dict[str, list[str]] = {}
        self.status: dict[str, str] = {}

    def observe(self, line: LedgerLine) -> None:
        """Feed every line, in order, after the rule looked at it."""
        p = line.payload if isinstance(line.payload, dict) else {}
        if line.event in ("plan_version", "run_started"):
            self.version = int(p.get("version") or self.version + 1)
            tasks = (p.get("plan") or {}).get("tasks") or []
            self.deps = {str(t.get("id")): [str(d) for d in t.get("dependencies") or []] for t in tasks}
            self.status = {}
        elif line.event == "run_resumed":
            # The run goes on with the statuses it kept (rules.ResumeKeeps checks them against the record).
            self.version = int(p.get("version") or self.version)
            tasks = (p.get("plan") or {}).get("tasks") or []
            self.deps = {str(t.get("id")): [str(d) for d in t.get("dependencies") or []] for t in tasks}
            statuses = p.get("statuses") if isinstance(p.get("statuses"), dict) else {}
            self.status = {str(k): str(v) for k, v in statuses.items() if v != "PENDING"}
        elif line.event == "status":
            self.status[str(p.get("task_id", ""))] = str(p.get("status", ""))

    def knows(self, task_id: str) -> bool:
        return task_id in self.deps

    def upstream_failure(self, task_id: str) -> str | None:
        """A FAILED/BLOCKED task this one depends on, directly or not."""
        seen: set[str] = set()
        frontier = list(self.deps.get(task_id, []))
        while frontier:
            current = frontier.pop()
            if current in seen:
                continue
            seen.add(current)
            if self.status.get(current) in FAILED_LIKE:
                return current
            frontier.extend(self.deps.get(current, []))
        return None
