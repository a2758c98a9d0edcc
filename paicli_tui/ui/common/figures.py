"""Figures shown on the run screen, the task tree and the status bar:
elapsed time, tokens and their cost. Textual-free."""

from __future__ import annotations

from typing import Any

from paicli_tui.llm.types import Usage
from paicli_tui.records.cost import cost_of


def format_elapsed(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def format_tokens(tokens: int) -> str:
    if tokens < 1000:
        return f"{tokens} tok"
    if tokens < 1_000_000:
        return f"{tokens / 1000:.1f}k tok"
    return f"{tokens / 1_000_000:.1f}M tok"


def format_cost(dollars: float) -> str:
    """Dollars with enough digits to see a cheap model's cost move."""
    return f"${dollars:,.2f}" if dollars >= 1 else f"${dollars:.4f}"


def usage_text(usage: Usage, price: Any) -> str:
    """Tokens used, and their cost when a price is known (never a made-up
    "$0.00" for a model without one)."""
    text = format_tokens(usage.prompt_tokens + usage.completion_tokens)
    return f"{text} · {format_cost(cost_of(usage, price))}" if price is not None else text


def session_price(session: Any) -> Any:
    """The price of the model the session's client talks to: configured
    (``settings.prices``), else the built-in table's (records/prices.py);
    None for local servers, the demo, an unknown model, or no live model (a
    replay, whose recorded runs carry their own price)."""
    from paicli_tui.records.prices import model_price

    settings = getattr(session, "settings", None)
    model = getattr(getattr(session, "client", None), "model", None)
    if not model:
        return None
    return model_price(model, getattr(settings, "prices", None), getattr(settings, "provider", ""))
