"""Token cost. Prices are per million tokens; ``prompt_tokens`` includes the
cached ones (OpenAI usage semantics), which cost the cached price when one is
set and the prompt price otherwise.

``cost_of`` is pure and cheap: the run screen and status bar may call it on
every usage update.
"""

from __future__ import annotations

from typing import Any, Mapping

PER = 1_000_000


def _get(source: Any, name: str) -> Any:
    if isinstance(source, Mapping):
        return source.get(name)
    return getattr(source, name, None)


def cost_of(usage: Any, price: Any) -> float:
    """Cost of ``usage`` (a Usage, a ModelResponse or a mapping with
    prompt_tokens / completion_tokens / cached_tokens) at ``price`` (a
    config.Price or a mapping with prompt / completion / cached per million).
    No price → 0.0."""
    if price is None:
        return 0.0
    prompt = int(_get(usage, "prompt_tokens") or 0)
    completion = int(_get(usage, "completion_tokens") or 0)
    cached = min(int(_get(usage, "cached_tokens") or 0), prompt)
    prompt_price = float(_get(price, "prompt") or 0.0)
    cached_price = _get(price, "cached")
    cached_price = prompt_price if cached_price is None else float(cached_price)
    completion_price = float(_get(price, "completion") or 0.0)
    return ((prompt - cached) * prompt_price + cached * cached_price + completion * completion_price) / PER


def price_for(model: str, prices: Mapping[str, Any]) -> Any:
    """The price entry for ``model``, or None."""
    return prices.get(model) if model else None
