"""A cost limit held while a reply streams: the call's price so far (the
prompt as sent, the reply as it arrives, counted by characters as paicli
counts a server that reports no usage) is checked on every streamed piece,
and the stream is closed once it reaches the money left."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from paicli_tui.llm.types import Delta, ModelBudgetCut, Usage
from paicli_tui.llm.usage_estimate import PER_MESSAGE, PER_REPLY, by_characters, message_text

if TYPE_CHECKING:
    from paicli_tui.agent.budget import Budget


class CostMeter:
    def __init__(self, budget: "Budget", room: float, prompt_tokens: int) -> None:
        self.budget = budget
        self.room = room
        self.prompt_tokens = prompt_tokens
        self.chars = 0

    @classmethod
    def for_call(cls, budget: "Budget", messages: list[dict], tools: list[dict] | None) -> "CostMeter | None":
        """A meter when a cost limit applies and the price is known, else None."""
        room = budget.cost_room()
        if room is None or budget.pricing() is None:
            return None
        text = "\n".join(message_text(message) for message in messages)
        if tools:
            text += "\n" + json.dumps(tools, ensure_ascii=False)
        return cls(budget, room, by_characters(text) + PER_MESSAGE * len(messages) + PER_REPLY)

    def usage(self) -> Usage:
        return Usage(self.prompt_tokens, -(-self.chars * 10 // 36), 0, estimated=True)

    def spent(self) -> float:
        price_of = self.budget.pricing()
        assert price_of is not None
        return price_of(self.usage())

    def on_delta(self, delta: Delta) -> None:
        self.chars += len(delta.text) + len(delta.tool)
        if self.spent() >= self.room:
            raise ModelBudgetCut(f"reply stopped at the cost limit (≈{self.spent():.4f} USD for this call)")

    def charge_cut(self) -> None:
        """The cut call sent no usage: charge its estimate to the agent and the run."""
        usage, cost = self.usage(), self.spent()
        self.budget.charge(usage.prompt_tokens + usage.completion_tokens, cost)
        if self.budget.run is not None:
            self.budget.run.charge_cost(cost)
