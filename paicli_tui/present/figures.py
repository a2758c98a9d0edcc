"""Figures shown on the run screen, the task tree and the status bar:
elapsed time, tokens and their cost, and the narrow glyphs that stand in
for the summary's emoji. Textual-free."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paicli_tui.llm.types import Usage
from paicli_tui.records.cost import cost_of

if TYPE_CHECKING:
    from paicli_tui.config.settings import Price
    from paicli_tui.session.port import SessionPort


def format_elapsed(seconds: float) -> str:
    """``4.1s`` below 10 s (rounded to tenths: a 1-s task is ``1.0s``, not
    ``0s``), then whole seconds, ``1m15s``, ``2h03m``."""
    seconds = max(0.0, seconds)
    if round(seconds, 1) < 10:
        return f"{seconds:.1f}s"
    seconds = int(round(seconds))
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


def session_price(session: "SessionPort") -> "Price | None":
    """The price of the model the session's client talks to: configured
    (``settings.prices``), else the built-in table's (records/prices.py);
    None for local servers, the demo, an unknown model, or no live model (a
    replay, whose recorded runs carry their own price)."""
    from paicli_tui.records.prices import model_price

    if not session.model:
        return None
    return model_price(session.model, session.settings.prices, session.settings.provider)


def format_clock(seconds: float) -> str:
    """A run's elapsed time as a clock: ``00:12``, ``12:05``, ``1:02:03``."""
    total = int(max(0.0, seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


def approximate_cost(dollars: float) -> str:
    """``≈$0.02``: the run header's cost, an estimate from list prices."""
    if dollars >= 0.01:
        return f"≈${dollars:,.2f}"
    return f"≈${dollars:.4f}" if dollars > 0 else "≈$0"


#: The text summary's emoji (P-5.10) and the narrow glyphs the UI draws
#: instead: a wide emoji, worse one with a variation selector (``⏭️``), is
#: measured differently by terminals and pushes borders out of line.
NARROW_GLYPHS = {
    "\u2705": "✓",  # ✅
    "\u274c": "✗",  # ❌
    "\u26d4": "■",  # ⛔
    "\u23ed\ufe0f": "⊘",  # ⏭️
    "\u23ed": "⊘",
}


def narrow_glyphs(text: str) -> str:
    """``text`` with the summary's emoji replaced by narrow glyphs."""
    for emoji, glyph in NARROW_GLYPHS.items():
        text = text.replace(emoji, glyph)
    return text.replace("\ufe0f", "")
