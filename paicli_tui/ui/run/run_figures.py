"""The run screen's heading figures (no Textual):
``3/5 done · 00:12 elapsed · 9.5k tok · ≈$0.02 · 2/4 workers busy``."""

from __future__ import annotations

from typing import Any

from paicli_tui.records.cost import cost_of
from paicli_tui.present.figures import format_clock, format_cost, format_tokens
from paicli_tui.ui.run.run_model import RunModel


def heading_figures(model: RunModel, price: Any = None, *, compact: bool = False) -> str:
    """The figures, shortest words when ``compact`` (a narrow terminal). The
    cost only when a price is known: never a made-up ``$0.00``."""
    done, total = model.done_count()
    tokens = model.usage.prompt_tokens + model.usage.completion_tokens
    used = ("≈" if model.usage.estimated else "") + format_tokens(tokens)
    parts = [f"{done}/{total} done", format_clock(model.elapsed()) + ("" if compact else " elapsed"), used]
    if price is not None:
        spent = format_cost(cost_of(model.usage, price), estimate=True)
        limit = model.run_max_cost
        parts.append(f"{spent}/{format_cost(limit)}" if limit is not None else spent)
    if not model.finished:
        busy = len(model.busy_workers())
        parts.append(f"{busy}/{len(model.workers)} busy" if compact else f"{busy}/{len(model.workers)} workers busy")
    return " · ".join(parts)
