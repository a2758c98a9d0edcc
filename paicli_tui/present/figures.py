"""Figures shown on the run screen, the task tree and the status bar:
elapsed time, tokens and their cost, and the narrow glyphs that stand in
for the summary's emoji. Textual-free."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any


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


def format_tokens(tokens: int, unit: str = " tok") -> str:
    """``171 tok``, ``3.5k tok``, ``12k tok``, ``1.2M tok``: at most three
    figures, so a count fits a status line or a tree row; ``unit=""`` for a
    bare count beside a label that already says tokens."""
    if tokens < 1000:
        text = str(tokens)
    elif tokens < 10_000:
        text = f"{tokens / 1000:.1f}".removesuffix(".0") + "k"
    elif tokens < 1_000_000:
        text = f"{tokens // 1000}k"
    else:
        text = f"{tokens / 1_000_000:.1f}".removesuffix(".0") + "M"
    return text + unit


def format_cost(dollars: float, *, estimate: bool = False) -> str:
    """Cents once there are cents (``$0.02``, ``$1,234.50``), four places
    below a cent so a cheap model's cost still moves (``$0.0042``), ``$0``
    for nothing; ``estimate`` marks a figure from list prices with ``≈``."""
    if dollars >= 0.01:
        text = f"${dollars:,.2f}"
    else:
        text = f"${dollars:.4f}" if dollars > 0 else "$0"
    return ("≈" if estimate else "") + text


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


def format_changes(files: int, added: int, removed: int) -> str:
    """What a task changed: ``2 files +10 −3``; a binary file counts no lines
    (git reports -1), and a task that changed nothing says so."""
    if not files:
        return "no changes"
    lines = f" +{max(added, 0)} −{max(removed, 0)}"
    return f"{files} file{'s' if files != 1 else ''}{lines}"


def merge_word(changed: tuple[int, int, int] | None, merged: bool, resolved: bool = False) -> str:
    """Whether a task's work reached the run's result ("" without isolation)."""
    if changed is None:
        return ""
    if merged:
        return "merged after a conflict" if resolved else "merged"
    return "nothing to merge" if not changed[0] else "not merged"
