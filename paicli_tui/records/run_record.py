"""One run rebuilt from its ledger lines for ``paicli report``: plan
versions, every task of every version with its attempts, verdicts, tokens
and times, and what every agent spent.

The lines become events (``records/rebuild``: every line the reader accepts
has its event's fields already) and go through the same fold the run screen
uses (``records/run_fold``); this module adds what only the report needs:
the run's request, its plan versions with their line numbers, prices, what
each agent spent, counters and the outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from paicli_tui import events as ev
from paicli_tui.records.cost import cost_of
from paicli_tui.records.ledger import LedgerLine
from paicli_tui.records.rebuild import rebuild
from paicli_tui.records.run_fold import RunChanges, RunFold
from paicli_tui.records.run_views import TaskView, Tokens
from paicli_tui.records.runs import RunLines


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
    #: Every task of every plan version, by (version, id), in the order met.
    tasks: dict[tuple[int, str], TaskView] = field(default_factory=dict)
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
            total += spent
        return total


class RecordFold(RunFold):
    """The run fold, plus the facts only the report keeps."""

    def __init__(self, record: RunRecord, prices: Mapping[str, Any]) -> None:
        super().__init__(kind=record.kind)
        self.record = record
        self.replay = True
        self._fallback_prices = dict(prices)
        self._call_model: dict[str, str] = {}

    def _task(self, task_id: str) -> TaskView | None:
        """A damaged ledger may name a task no recorded plan has: keep it."""
        task = self.tasks.get(task_id)
        if task is None:
            task = TaskView(task_id, "", version=self.version)
            self.tasks[task_id] = task
            self.order.append(task_id)
        self.history.setdefault((task.version, task_id), task)
        return task

    def cost(self, response: ev.ModelResponse) -> float:
        model = self._call_model.get(response.call_id, "")
        prices = self.record.prices or self._fallback_prices
        return cost_of(response.payload(), prices.get(model)) if model in prices else 0.0

    def take_line(self, line: LedgerLine, event: ev.Event) -> None:
        record = self.record
        if event.ts is not None:
            record.first_ts = event.ts if record.first_ts is None else record.first_ts
            record.last_ts = event.ts
        match event:
            case ev.RunRequested():
                record.kind = event.kind or record.kind
                record.goal, record.limits, record.prices = event.goal, dict(event.limits), dict(event.prices)
            case ev.PlanProposed():
                record.versions.append(PlanVersion(event.version, event.origin, event.goal, event.plan, line.number))
                record.goal = record.goal or event.goal
            case ev.RunStarted():
                record.schedule = {"policy": event.policy, "parallelism": event.parallelism,
                                   "workers": list(event.workers), "max_replans": event.max_replans}
            case ev.ModelRequest():
                self._call_model[event.call_id] = event.model
            case ev.ModelResponse():
                record.agents.setdefault(event.actor, Tokens()).add(event, self.cost(event))
            case ev.StepRetry():
                record.retries += 1
            case ev.ReplanTriggered():
                record.replans += 1
            case ev.ToolCallStarted():
                record.tool_calls += 1
            case ev.AgentFinished():
                record.last_agent_finish = dict(event.payload(), actor=event.actor)
            case ev.RunLimitReached():
                record.limit_reason = event.reason
            case ev.RunCancelled():
                record.cancelled = True
            case ev.RunFinished():
                record.finished = event.payload()
            case ev.RunOutcomeRecorded():
                record.outcome = event.payload()
        self.take(event, RunChanges())


def build_run(run: RunLines, prices: Mapping[str, Any] | None = None) -> RunRecord:
    """``prices`` (model → price) is used when the run recorded none."""
    record = RunRecord(run.index, run.kind)
    fold = RecordFold(record, prices or {})
    for line, event in rebuild(run.lines):
        fold.take_line(line, event)
    record.tasks.update(fold.history)
    return record
