"""Built-in prices for the presets' common models, so a cost estimate shows
without configuring anything. US dollars per million tokens (``prompt``,
``completion``, ``cached`` prompt tokens), as the providers listed them in
2025; prices change, so every figure shown from them is an estimate (≈) and
``[prices."MODEL"]`` in config.toml overrides an entry.

Local servers and the demo cost nothing worth showing: no price, no cost.
"""

from __future__ import annotations

from typing import Any, Mapping

#: model name → {prompt, completion, cached} per million tokens.
BUILTIN_PRICES: dict[str, dict[str, float]] = {
    # OpenAI
    "gpt-4o": {"prompt": 2.50, "completion": 10.00, "cached": 1.25},
    "gpt-4o-mini": {"prompt": 0.15, "completion": 0.60, "cached": 0.075},
    "gpt-4.1": {"prompt": 2.00, "completion": 8.00, "cached": 0.50},
    "gpt-4.1-mini": {"prompt": 0.40, "completion": 1.60, "cached": 0.10},
    "gpt-4.1-nano": {"prompt": 0.10, "completion": 0.40, "cached": 0.025},
    "o3": {"prompt": 2.00, "completion": 8.00, "cached": 0.50},
    "o3-mini": {"prompt": 1.10, "completion": 4.40, "cached": 0.55},
    "o4-mini": {"prompt": 1.10, "completion": 4.40, "cached": 0.275},
    # DeepSeek
    "deepseek-chat": {"prompt": 0.28, "completion": 0.42, "cached": 0.028},
    "deepseek-reasoner": {"prompt": 0.28, "completion": 0.42, "cached": 0.028},
    # Zhipu GLM
    "glm-4.6": {"prompt": 0.60, "completion": 2.20, "cached": 0.11},
    "glm-4.5": {"prompt": 0.60, "completion": 2.20, "cached": 0.11},
    "glm-4.5-air": {"prompt": 0.20, "completion": 1.10, "cached": 0.03},
    "glm-4.5-flash": {"prompt": 0.0, "completion": 0.0, "cached": 0.0},
    "glm-4-flash": {"prompt": 0.0, "completion": 0.0, "cached": 0.0},
    "glm-4-plus": {"prompt": 0.70, "completion": 0.70},
}

#: Providers whose models run on the person's own machine (or nowhere).
UNPRICED_PROVIDERS = frozenset({"ollama", "llamacpp", "vllm", "lmstudio", "demo"})


def builtin_price(model: str) -> dict[str, float] | None:
    """The built-in entry for ``model``: its exact name, else without a
    router's ``vendor/`` prefix (``openai/gpt-4o-mini``), else the longest
    entry it extends with a dash (``gpt-4o-2024-08-06`` → ``gpt-4o``)."""
    name = model.strip().lower()
    if not name:
        return None
    name = name.rsplit("/", 1)[-1]
    if name in BUILTIN_PRICES:
        return BUILTIN_PRICES[name]
    extended = [key for key in BUILTIN_PRICES if name.startswith(key + "-")]
    return BUILTIN_PRICES[max(extended, key=len)] if extended else None


def model_price(model: str, configured: Mapping[str, Any] | None, provider: str = "") -> Any:
    """The price to estimate ``model``'s cost with: the configured one
    (config.toml ``[prices]``) when there is one, else the built-in entry
    unless the provider is a local server or the demo; None when neither."""
    if model and configured and model in configured:
        return configured[model]
    if provider in UNPRICED_PROVIDERS:
        return None
    return builtin_price(model)


def cost_limit_refusal(settings: Any) -> str | None:
    """Why a cost limit in ``settings`` cannot be held (no price for the
    model), in one line; None when there is none or it can be."""
    named = [flag for flag, value in (("--max-cost/max_cost", settings.max_cost),
                                      ("--run-max-cost/run_max_cost", settings.run_max_cost)) if value is not None]
    if not named:
        return None
    model = settings.resolved().model
    if model_price(model, settings.prices, settings.provider) is not None:
        return None
    return (f"{' and '.join(named)} cannot be held: no price is known for model {model!r}; "
            f'add [prices."{model}"] prompt = …, completion = … (USD per million tokens) to config.toml')
