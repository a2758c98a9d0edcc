"""The verify rule for money: once a run's cost limit is reached — its
recorded model responses priced at the recorded price reach it, or the run
recorded the stop — no model call is made."""

from __future__ import annotations

from paicli_tui.records.cost import cost_of
from paicli_tui.records.ledger import LedgerLine
from paicli_tui.records.plan_state import PlanState
from paicli_tui.records.rules import Rule, _p


class CostLimit(Rule):
    name, text = "cost-limit", "no model call after the run's cost limit was reached"

    def __init__(self, kind):
        super().__init__(kind)
        self.limit: float | None = None
        self.prices: dict = {}
        self.model = ""
        self.spent = 0.0
        self.reached_at = 0  # the line where the limit was reached

    def check(self, line: LedgerLine, plan: PlanState):
        p = _p(line)
        if line.event == "run_requested":
            limits = p.get("limits") if isinstance(p.get("limits"), dict) else {}
            value = limits.get("run_max_cost")
            self.limit = float(value) if isinstance(value, (int, float)) else None
            self.prices = p.get("prices") if isinstance(p.get("prices"), dict) else {}
        elif line.event == "model_request":
            self.model = str(p.get("model") or self.model)
            if self.reached_at:
                return self.v(line, f"{line.actor} called the model after the run's cost limit "
                                    f"(${self.limit:g}) was reached at line {self.reached_at}")
        elif line.event == "model_response" and self.limit is not None:
            price = self.prices.get(self.model) if self.model in self.prices else next(iter(self.prices.values()), None)
            self.spent += cost_of(p, price)
            if self.spent >= self.limit and not self.reached_at:
                self.reached_at = line.number
        elif line.event == "run_limit" and p.get("limit") == "cost" and not self.reached_at:
            self.reached_at = line.number
        return []
