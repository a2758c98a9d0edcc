"""Cost arithmetic and prices in settings and reports."""

from __future__ import annotations

import pytest

from paicli_tui.config.settings import ConfigError, Price

from paicli_tui.config.loading import load_settings
from paicli_tui.events import ModelResponse
from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.llm.types import Usage
from paicli_tui.records.cost import cost_of
from paicli_tui.records.report import session_reports
from tests.support.recorder import record, task_plan

pytestmark = pytest.mark.timeout(30)


def test_cached_tokens_are_part_of_the_prompt_and_cost_the_cached_price():
    price = Price(prompt=2.0, cached=0.5, completion=8.0)
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=500_000, cached_tokens=200_000)
    # 800k uncached × 2 + 200k cached × 0.5 + 500k × 8, per million
    assert cost_of(usage, price) == pytest.approx(1.6 + 0.1 + 4.0)


def test_without_a_cached_price_cached_tokens_cost_the_prompt_price():
    usage = Usage(1_000_000, 500_000, 200_000)
    assert cost_of(usage, {"prompt": 2.0, "completion": 8.0}) == pytest.approx(6.0)


def test_small_counts_mappings_and_events_all_work():
    response = ModelResponse("w", "c1", "", "", (), "stop", 1200, 300, 0, 0.1)
    price = {"prompt": 0.15, "completion": 0.60, "cached": 0.075}
    assert cost_of(response, price) == pytest.approx((1200 * 0.15 + 300 * 0.60) / 1e6)
    assert cost_of({"prompt_tokens": 10, "completion_tokens": 0, "cached_tokens": 10}, price) == pytest.approx(10 * 0.075 / 1e6)


def test_no_price_costs_nothing_and_cached_never_exceeds_prompt():
    assert cost_of(Usage(100, 100, 0), None) == 0.0
    assert cost_of(Usage(10, 0, 50), {"prompt": 1.0, "cached": 0.0}) == 0.0


def test_prices_from_config_toml_and_a_bad_price_is_one_line(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[prices."gpt-x"]\nprompt = 0.15\ncompletion = 0.6\ncached = 0.075\n', encoding="utf-8")
    settings = load_settings(path=config)
    assert settings.prices["gpt-x"] == Price(prompt=0.15, completion=0.6, cached=0.075)
    config.write_text('[prices."gpt-x"]\nprompt = -1\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_settings(path=config)
    assert "prices.gpt-x.prompt" in str(caught.value) and "\n" not in str(caught.value)
    config.write_text('[prices."gpt-x"]\ninput = 1\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown setting"):
        load_settings(path=config)


def test_the_report_prices_every_call_and_each_task(tmp_path):
    script = Script({
        "planner": [task_plan(("one", []), ("two", ["t1"]))],
        "task": [Reply(content="done", usage=Usage(1000, 100, 400)), Reply(content="done", usage=Usage(2000, 200, 0))],
    })
    path = record(tmp_path, "plan", "two tasks", script,
                  prices={"m": {"prompt": 3.0, "completion": 15.0, "cached": 0.3}, "other": {"prompt": 99.0}})
    (report,) = session_reports(path)
    assert report["prices"] == {"m": {"prompt": 3.0, "completion": 15.0, "cached": 0.3}}
    task_1, task_2 = report["tasks"]
    assert task_1["cost"] == pytest.approx((600 * 3 + 400 * 0.3 + 100 * 15) / 1e6)
    assert task_2["cost"] == pytest.approx((2000 * 3 + 200 * 15) / 1e6)
    planner = (12 * 3 + 7 * 15) / 1e6  # the default scripted usage
    assert report["agents"]["planner"]["cost"] == pytest.approx(planner)
    assert report["totals"]["cost"] == pytest.approx(task_1["cost"] + task_2["cost"] + planner)
    assert report["totals"]["tokens"] == {"prompt": 3012, "completion": 307, "cached": 400}
    assert task_1["tokens"] == {"prompt": 1000, "completion": 100, "cached": 400}


def test_a_ledger_without_recorded_prices_uses_the_given_ones(tmp_path):
    script = Script({"react": [Reply(content="hi", usage=Usage(1_000_000, 0, 0))]})
    path = record(tmp_path, "react", "hello", script)
    assert session_reports(path)[0]["totals"]["cost"] == 0.0
    assert session_reports(path, {"m": {"prompt": 1.25}})[0]["totals"]["cost"] == pytest.approx(1.25)
