"""One run rebuilt from its ledger lines: plan versions, tasks or steps with
their attempts, verdicts, tokens and times, and what every agent spent.

Model calls are charged to the task the calling agent was serving at the
time: in /plan an agent is named after its task; in team mode a worker serves
the step it was dispatched to and a reviewer the step whose review it
started. Calls outside any task (planner, react) are charged to the agent
only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from paicli_tui.records.ledger import LedgerLine
from paicli_tui.records.cost import cost_of
from paicli_tui.records.runs import RunLines

TERMINAL = frozenset({"COMPLETED", "FAILED", "SKIPPED", "BLOCKED", "CANCELLED"})


@dataclass
class Tokens:
    prompt: int = 0
    completion: int = 0
    cached: int = 0
    calls: int = 0
    cost: float = 0.0
    #: Calls whose server sent no usage and that paicli did not count:
    #: the figures above leave them out.
    unreported: int = 0
    #: Calls whose tokens paicli counted (no usage from the server): ≈.
    estimated: int = 0
    #: Sums over the calls that measured them (time to first token, tok/s).
    ttft_s: float = 0.0
    ttft_calls: int = 0
    tokens_per_s: float = 0.0
    speed_calls: int = 0

    def add(self, payload: Mapping[str, Any], cost: float) -> None:
        self.prompt += int(payload.get("prompt_tokens") or 0)
        self.completion += int(payload.get("completion_tokens") or 0)
        self.cached += int(payload.get("cached_tokens") or 0)
        self.calls += 1
        self.cost += cost
        estimated = bool(payload.get("usage_estimated"))
        self.estimated += estimated
        self.unreported += payload.get("usage_reported") is False and not estimated
        if isinstance(payload.get("ttft_s"), (int, float)):
            self.ttft_s += payload["ttft_s"]
            self.ttft_calls += 1
        if isinstance(payload.get("tokens_per_s"), (int, float)):
            self.tokens_per_s += payload["tokens_per_s"]
            self.speed_calls += 1

    def to_dict(self) -> dict:
        return {"prompt": self.prompt, "completion": self.completion, "cached": self.cached}


@dataclass
class TaskRecord:
    id: str
    plan_version: int
    description: str = ""
    dependencies: list[str] = field(default_factory=list)
    status: str = "PENDING"
    attempts: int = 0
    worker: str = ""
    started: float | None = None
    finished: float | None = None
    result: str = ""
    error: str = ""
    verdicts: list[dict] = field(default_factory=list)
    tokens: Tokens = field(default_factory=Tokens)


@dataclass
class PlanVersion:
    version: int
    origin: str
    goal: str
    plan: dict
    line: int


@dataclass
class RunRecord:
    index: int
    kind: str
    goal: str = ""
    limits: dict = field(default_factory=dict)
    prices: dict = field(default_factory=dict)
    schedule: dict = field(default_factory=dict)
    versions: list[PlanVersion] = field(default_factory=list)
    tasks: dict[tuple[int, str], TaskRecord] = field(default_factory=dict)
    agents: dict[str, Tokens] = field(default_factory=dict)
    outcome: dict | None = None
    finished: dict | None = None  # the run_finished payload
    limit_reason: str = ""
    cancelled: bool = False
    last_agent_finish: dict = field(default_factory=dict)
    replans: int = 0
    retries: int = 0
    tool_calls: int = 0
    first_ts: float | None = None
    last_ts: float | None = None

    @property
    def totals(self) -> Tokens:
        total = Tokens()
        for spent in self.agents.values():
            total.prompt += spent.prompt
            total.completion += spent.completion
            total.cached += spent.cached
            total.calls += spent.calls
            total.cost += spent.cost
            total.unreported += spent.unreported
            total.estimated += spent.estimated
            total.ttft_s += spent.ttft_s
            total.ttft_calls += spent.ttft_calls
            total.tokens_per_s += spent.tokens_per_s
            total.speed_calls += spent.speed_calls
        return total


class RunBuilder:
    def __init__(self, run: RunLines, prices: Mapping[str, Any] | None = None) -> None:
        self.record = RunRecord(run.index, run.kind)
        self._fallback_prices = dict(prices or {})
        self._version = 0
        self._plan: dict = {}
        self._serving: dict[str, TaskRecord] = {}  # actor → task it is working on
        self._call_model: dict[str, str] = {}
        for line in run.lines:
            self._take(line)

    def _take(self, line: LedgerLine) -> None:
        record = self.record
        ts = line.data.get("ts")
        if isinstance(ts, (int, float)):
            record.first_ts = ts if record.first_ts is None else record.first_ts
            record.last_ts = ts
        p = line.payload if isinstance(line.payload, dict) else {}
        handler = getattr(self, f"_on_{line.event}", None)
        if handler is not None:
            handler(line, p, ts if isinstance(ts, (int, float)) else None)

    # -- run facts ---------------------------------------------------------------

    def _on_run_requested(self, line, p, ts) -> None:
        self.record.kind = str(p.get("kind") or self.record.kind)
        self.record.goal = str(p.get("goal") or "")
        self.record.limits = dict(p.get("limits") or {})
        self.record.prices = dict(p.get("prices") or {})

    def _on_plan_version(self, line, p, ts) -> None:
        version = int(p.get("version") or len(self.record.versions) + 1)
        self.record.versions.append(PlanVersion(version, str(p.get("origin", "")), str(p.get("goal", "")), p.get("plan") or {}, line.number))
        self.record.goal = self.record.goal or str(p.get("goal") or "")
        if p.get("origin") == "replan":
            self._adopt(version, p.get("plan") or {})
        else:
            self._version, self._plan = version, p.get("plan") or {}

    def _on_run_started(self, line, p, ts) -> None:
        self.record.schedule = {k: p.get(k) for k in ("policy", "parallelism", "workers", "max_replans")}
        self._adopt(int(p.get("version") or 1), p.get("plan") or {})

    def _adopt(self, version: int, plan: dict) -> None:
        """A plan version starts running: all its tasks exist, PENDING."""
        self._version, self._plan = version, plan
        for entry in plan.get("tasks") or []:
            self._task(str(entry.get("id", "")))

    def _task(self, task_id: str) -> TaskRecord:
        key = (self._version, task_id)
        task = self.record.tasks.get(key)
        if task is None:
            entry = next((t for t in self._plan.get("tasks") or [] if t.get("id") == task_id), {})
            task = TaskRecord(task_id, self._version, str(entry.get("description", "")), list(entry.get("dependencies") or []))
            self.record.tasks[key] = task
        return task

    def _on_dispatch(self, line, p, ts) -> None:
        task = self._task(str(p.get("task_id", "")))
        task.attempts = max(task.attempts, int(p.get("attempt") or 1))
        task.worker = str(p.get("worker", ""))
        task.started = ts if task.started is None else task.started
        self._serving[task.worker] = task
        self._serving[task.id] = task

    def _on_status(self, line, p, ts) -> None:
        task = self._task(str(p.get("task_id", "")))
        task.status = str(p.get("status", ""))
        if task.status in TERMINAL:
            task.finished = ts
            task.result = str(p.get("result") or task.result)
            task.error = str(p.get("error") or "")
            for actor in [a for a, t in self._serving.items() if t is task]:
                del self._serving[actor]

    def _on_review_started(self, line, p, ts) -> None:
        self._serving[line.actor] = self._task(str(p.get("step_id", "")))

    def _on_review_verdict(self, line, p, ts) -> None:
        task = self._task(str(p.get("step_id", "")))
        task.verdicts.append({"attempt": p.get("attempt"), "approved": bool(p.get("approved")),
                              "feedback": p.get("feedback", ""), "reviewer": line.actor})

    def _on_retry(self, line, p, ts) -> None:
        self.record.retries += 1

    def _on_replan_triggered(self, line, p, ts) -> None:
        self.record.replans += 1

    def _on_tool_call(self, line, p, ts) -> None:
        self.record.tool_calls += 1

    def _on_model_request(self, line, p, ts) -> None:
        self._call_model[str(p.get("call_id", ""))] = str(p.get("model", ""))

    def _on_model_response(self, line, p, ts) -> None:
        model = self._call_model.get(str(p.get("call_id", "")), "")
        prices = self.record.prices or self._fallback_prices
        cost = cost_of(p, prices.get(model)) if model in prices else 0.0
        self.record.agents.setdefault(line.actor, Tokens()).add(p, cost)
        task = self._serving.get(line.actor)
        if task is not None:
            task.tokens.add(p, cost)

    def _on_agent_finished(self, line, p, ts) -> None:
        self.record.last_agent_finish = dict(p, actor=line.actor)

    def _on_run_limit(self, line, p, ts) -> None:
        self.record.limit_reason = str(p.get("reason", ""))

    def _on_run_cancelled(self, line, p, ts) -> None:
        self.record.cancelled = True

    def _on_run_finished(self, line, p, ts) -> None:
        self.record.finished = dict(p)

    def _on_run_outcome(self, line, p, ts) -> None:
        self.record.outcome = dict(p)


def build_run(run: RunLines, prices: Mapping[str, Any] | None = None) -> RunRecord:
    """``prices`` (model → price) is used when the run recorded none."""
    return RunBuilder(run, prices).record
