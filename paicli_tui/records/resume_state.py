"""Where an interrupted /plan or /team run stands, read from its ledger.

The last run of a session is resumable when it is a plan or team run whose
plan started and which stopped before it finished on its own: the process
was killed (no outcome, or the outcome a later start wrote for it), the
person cancelled it, or a run budget stopped it. Everything a resume needs
is in the ledger: the plan version in force, each task's status and result,
how many attempts a step used, the replans, the budget spent, and the
isolated run's merges of completed work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from paicli_tui.records.ledger import LedgerLine
from paicli_tui.records.runs import RunLines, load, split_runs

#: The status a later start records for a run whose process died mid-run.
KILLED_STATUS = "killed"
KILLED_TEXT = "ended without an outcome — the process was killed"
#: Skip reasons that mean "not run because the run stopped", not "because upstream failed".
_UPSTREAM = "dependency "


@dataclass
class TaskState:
    id: str
    status: str = "PENDING"
    result: str = ""
    error: str = ""
    #: The highest attempt dispatched (a team step's retries) and the feedback it was sent with.
    attempt: int = 0
    feedback: str = ""
    notes: tuple[str, ...] = ()


@dataclass
class ResumeState:
    """One run's state at its interruption; ``why_not`` is "" when it may be resumed."""

    path: Path
    session: str
    index: int
    kind: str = ""
    goal: str = ""
    workspace: str = ""
    limits: dict = field(default_factory=dict)
    workers: tuple[str, ...] = ()
    parallelism: int = 0
    policy: str = ""
    max_replans: int = 2
    version: int = 0
    plan: dict = field(default_factory=dict)
    tasks: dict[str, TaskState] = field(default_factory=dict)
    replans: int = 0
    turns: int = 0
    tokens: int = 0
    seconds: float = 0.0
    stopped: str = ""
    stopped_at: float = 0.0
    finished: str = ""
    isolation_run: str = ""
    start: str = ""
    #: Where its tasks ran, as run_started recorded it ("" in older ledgers).
    executor: str = ""
    #: (task id, merge commit) of every merge into the integration ref, in order.
    merges: list[tuple[str, str]] = field(default_factory=list)
    #: The isolated run's result reached the workspace (or its branch).
    applied: bool = False
    why_not: str = ""

    @property
    def resumable(self) -> bool:
        return not self.why_not

    @property
    def kept(self) -> list[str]:
        return [t.id for t in self.tasks.values() if t.status == "COMPLETED"]

    @property
    def redone(self) -> list[str]:
        """Tasks the interruption caught running: they start again from their base."""
        return [t.id for t in self.tasks.values() if _interrupted(t)]

    @property
    def progress(self) -> str:
        return f"{len(self.kept)}/{len(self.tasks)} done"

    def kept_merges(self) -> tuple[list[tuple[str, str]], str]:
        """The merges the resumed run keeps and the integration head it goes
        on from: the merges in order up to the first of a task that is not
        kept (its work is thrown away; a later merge sits on top of it, so
        that task is run again as well)."""
        kept = set(self.kept)
        prefix: list[tuple[str, str]] = []
        for task_id, merge in self.merges:
            if task_id not in kept:
                break
            prefix.append((task_id, merge))
        return prefix, (prefix[-1][1] if prefix else self.start)

    def unmerged_kept(self) -> list[str]:
        """Kept tasks whose merge lies beyond the kept prefix: they must run again."""
        if not self.isolation_run:
            return []
        prefix, _ = self.kept_merges()
        in_prefix = {task for task, _ in prefix}
        merged = {task for task, _ in self.merges}
        return [task for task in self.kept if task in merged and task not in in_prefix]


def _interrupted(task: TaskState) -> bool:
    if task.status in ("RUNNING", "CONFLICT"):
        return True
    return task.status == "SKIPPED" and task.error == "cancelled" and task.attempt > 0


def _p(line: LedgerLine) -> dict:
    return line.payload if isinstance(line.payload, dict) else {}


def read_resume_state(path: Path) -> ResumeState:
    """The last run of the ledger at ``path``, as a resume would take it up."""
    lines = load(path)
    head, runs = split_runs(lines)
    state = ResumeState(path, path.stem, len(runs))
    for line in head:
        if line.event == "session_started":
            state.workspace = str(_p(line).get("workspace") or state.workspace)
    if not runs:
        state.why_not = "no run recorded"
        return state
    _fold(state, runs[-1])
    return state


def _fold(state: ResumeState, run: RunLines) -> None:
    state.kind = run.kind
    outcome = cancelled = limit = ""
    segment_start: float | None = None
    last_ts = 0.0
    for line in run.lines:
        p = _p(line)
        ts = float(line.data.get("ts") or 0.0)
        if segment_start is None:
            segment_start = ts
        last_ts = max(last_ts, ts)
        match line.event:
            case "session_started":
                state.workspace = str(p.get("workspace") or state.workspace)
            case "run_requested":
                state.goal, state.limits = str(p.get("goal") or ""), dict(p.get("limits") or {})
            case "run_started":
                state.workers = tuple(p.get("workers") or ())
                state.parallelism = int(p.get("parallelism") or len(state.workers) or 1)
                state.policy = str(p.get("policy") or "ready")
                state.max_replans = int(p.get("max_replans") or 0)
                state.executor = str(p.get("executor") or state.executor)
                _new_version(state, int(p.get("version") or 1), p.get("plan") or {})
            case "plan_version" if p.get("origin") == "replan":
                state.replans += 1
                _new_version(state, int(p.get("version") or state.version + 1), p.get("plan") or {})
            case "run_resumed":
                # The earlier part's clock ended at its last line; this part's starts here.
                state.seconds = float((p.get("spent") or {}).get("seconds") or 0.0)
                segment_start = ts
                state.executor = str(p.get("executor") or state.executor)
                outcome = cancelled = limit = ""
                state.finished, state.applied = "", False
            case "dispatch" if p.get("task_id") in state.tasks:
                task = state.tasks[str(p["task_id"])]
                task.attempt = max(task.attempt, int(p.get("attempt") or 1))
            case "retry" if p.get("step_id") in state.tasks:
                task = state.tasks[str(p["step_id"])]
                task.feedback = str(p.get("feedback") or "")
            case "review_verdict" if p.get("approved") is True and p.get("step_id") in state.tasks:
                state.tasks[str(p["step_id"])].notes = tuple(p.get("notes") or ())
            case "status" if p.get("task_id") in state.tasks:
                task = state.tasks[str(p["task_id"])]
                task.status = str(p.get("status") or task.status)
                task.result, task.error = str(p.get("result") or ""), str(p.get("error") or "")
            case "model_response":
                state.turns += 1
                state.tokens += int(p.get("prompt_tokens") or 0) + int(p.get("completion_tokens") or 0)
            case "workspace_snapshot":
                state.isolation_run, state.start = str(p.get("run") or ""), str(p.get("start") or "")
                state.merges = []
            case "run_applied":
                state.applied = True
            case "task_merged":
                state.merges.append((str(p.get("task_id") or ""), str(p.get("merge") or "")))
            case "run_cancelled":
                cancelled = str(p.get("reason") or "cancelled")
            case "run_limit":
                limit = str(p.get("reason") or "a run budget was used up")
            case "run_finished":
                state.finished = str(p.get("status") or "")
            case "run_outcome":
                outcome = str(p.get("status") or "")
    state.seconds += max(0.0, last_ts - (segment_start or last_ts))
    state.stopped_at = last_ts
    state.stopped = _why_stopped(outcome, cancelled, limit)
    state.why_not = _why_not(state, outcome, cancelled, limit)


def _new_version(state: ResumeState, version: int, plan: dict) -> None:
    state.version, state.plan = version, plan
    key = "steps" if plan.get("steps") else "tasks"
    state.tasks = {str(t.get("id")): TaskState(str(t.get("id"))) for t in plan.get(key) or [] if t.get("id")}


def _why_stopped(outcome: str, cancelled: str, limit: str) -> str:
    if limit:
        return limit
    if cancelled:
        return cancelled
    if not outcome or outcome == KILLED_STATUS:
        return KILLED_TEXT
    if outcome.lower() == "cancelled":
        return "cancelled"
    return f"it ended {outcome}"


def _why_not(state: ResumeState, outcome: str, cancelled: str, limit: str) -> str:
    if state.kind not in ("plan", "team"):
        return f"a {state.kind} run has no plan to go on with (a conversation continues with `paicli -c`)"
    if not state.tasks:
        return "it stopped before a plan was approved: there is nothing to keep (start it again)"
    if state.finished == "COMPLETED" and (state.applied or not state.isolation_run):
        return "it completed"
    # Every task done but the end not reached (the result not yet applied): a resume finishes it.
    if outcome and outcome.lower() not in (KILLED_STATUS, "cancelled") and not cancelled and not limit:
        return f"it ended {outcome} on its own (a failed task is not run again)"
    return ""


def resume_state_of(path: Path) -> ResumeState | None:
    """The state, or None when the ledger cannot be read."""
    try:
        return read_resume_state(path)
    except OSError:
        return None
