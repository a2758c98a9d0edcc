"""The built-in price table (issue 13 item 5): the presets' common models
have an estimate out of the box, config wins, local servers cost nothing."""

from __future__ import annotations

from paicli_tui.config.settings import Price, PRESETS
from paicli_tui.llm.types import Usage
from paicli_tui.records.cost import cost_of
from paicli_tui.records.prices import BUILTIN_PRICES, builtin_price, model_price


def test_every_cloud_presets_default_model_has_a_price():
    for provider in ("openai", "deepseek", "glm", "openrouter"):
        assert model_price(PRESETS[provider]["model"], {}, provider) is not None, provider


def test_dated_snapshots_and_router_names_find_their_family():
    assert builtin_price("gpt-4o-2024-08-06") == BUILTIN_PRICES["gpt-4o"]
    assert builtin_price("gpt-4o-mini-2024-07-18") == BUILTIN_PRICES["gpt-4o-mini"]
    assert builtin_price("openai/gpt-4.1-mini") == BUILTIN_PRICES["gpt-4.1-mini"]
    assert builtin_price("GLM-4.6") == BUILTIN_PRICES["glm-4.6"]
    assert builtin_price("gpt-4") is None  # not a prefix match of gpt-4o
    assert builtin_price("llama3") is None


def test_configured_prices_win_and_local_servers_and_the_demo_have_none():
    mine = Price(prompt=9.0, completion=9.0)
    assert model_price("gpt-4o", {"gpt-4o": mine}, "openai") is mine
    for provider in ("ollama", "llamacpp", "vllm", "lmstudio", "demo"):
        assert model_price("gpt-4o", {}, provider) is None
    assert model_price("qwen2.5-coder", {"qwen2.5-coder": mine}, "ollama") is mine


def test_a_cost_from_the_table():
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=1_000_000, cached_tokens=500_000)
    price = builtin_price("deepseek-chat")
    assert round(cost_of(usage, price), 4) == round(0.5 * 0.28 + 0.5 * 0.028 + 0.42, 4)
