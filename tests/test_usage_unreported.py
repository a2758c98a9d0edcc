"""A server that sends no usage (llama-cpp-python 0.3.36 ignores
``stream_options`` when streaming; tests/e2e/test_real_llama_server.py pins
it): the ledger says so per call, the report counts those calls apart from
the tokens, and `paicli run` says it once instead of showing zero tokens as
if they were counted."""

from __future__ import annotations

import io

import pytest

from paicli_tui import events as ev
from paicli_tui.present.headless import NO_USAGE, USAGE_ESTIMATED, TextPrinter
from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.present.report_text import headline, token_figure
from paicli_tui.records.report import session_reports
from tests.support.recorder import lines_of, record, task_plan

pytestmark = pytest.mark.timeout(30)


def response(actor: str, reported: bool) -> ev.ModelResponse:
    return ev.ModelResponse(actor=actor, call_id="c", content="x", reasoning="", tool_calls=(), finish_reason="stop",
                            prompt_tokens=0 if not reported else 10, completion_tokens=0 if not reported else 5,
                            cached_tokens=0, duration_s=0.1, usage_reported=reported)


def test_the_ledger_and_the_report_tell_unreported_calls_from_counted_ones(tmp_path):
    script = Script({"planner": [Reply(content=task_plan(("only", [])).content, usage=None)],
                     "task": [Reply(content="done")]})
    path = record(tmp_path, "plan", "the goal", script)
    flags = {line["actor"]: (line["payload"]["usage_reported"], line["payload"]["usage_estimated"])
             for line in lines_of(path) if line["event"] == "model_response"}
    assert flags == {"planner": (False, True), "task_1": (True, False)}
    (report,) = session_reports(path)
    totals = report["totals"]
    assert (totals["model_calls"], totals["calls_without_usage"], totals["calls_estimated"]) == (2, 0, 1)
    assert totals["tokens"]["prompt"] > 12 and totals["tokens"]["completion"] > 7, "the planner's call is counted too"
    assert "≈" in headline(report)[1] and "estimated for 1 of 2 calls" in headline(report)[1]


def test_a_figure_nobody_counted_is_unknown_not_zero():
    totals = {"model_calls": 3, "calls_without_usage": 3, "calls_estimated": 0}
    assert token_figure(0, 0, totals) == "tokens unknown (3 calls without usage)"
    assert token_figure(1500, 0, {"model_calls": 2, "calls_estimated": 0}) == "1.5k tokens (0 cached)"


def test_paicli_run_says_once_that_tokens_are_estimated():
    err = io.StringIO()
    printer = TextPrinter(out=io.StringIO(), err=err)
    for actor in ("planner", "task_1"):
        printer(ev.ModelResponse(actor=actor, call_id="c", content="x", reasoning="", tool_calls=(), finish_reason="stop",
                                 prompt_tokens=40, completion_tokens=3, cached_tokens=0, duration_s=0.1,
                                 usage_reported=False, usage_estimated=True))
    assert err.getvalue().count(USAGE_ESTIMATED) == 1 and NO_USAGE not in err.getvalue()


def test_paicli_run_says_once_that_the_server_sends_no_usage():
    err = io.StringIO()
    printer = TextPrinter(out=io.StringIO(), err=err)
    for actor in ("planner", "task_1", "task_2"):
        printer(response(actor, reported=False))
    assert err.getvalue().count(NO_USAGE) == 1
    assert err.getvalue().startswith(f"! [planner] {NO_USAGE}")


def test_nothing_is_said_when_the_server_reports_usage():
    err = io.StringIO()
    printer = TextPrinter(out=io.StringIO(), err=err)
    printer(response("react", reported=True))
    assert NO_USAGE not in err.getvalue()


def test_report_shows_time_to_first_token_and_speed(tmp_path):
    from paicli_tui.present.event_lines import speed_words

    script = Script({"react": [Reply(content="slow answer", chunk_chars=2, chunk_delay=0.01, usage=None)]})
    path = record(tmp_path, "react", "q", script)
    payload = [line["payload"] for line in lines_of(path) if line["event"] == "model_response"][0]
    assert payload["ttft_s"] is not None and payload["ttft_s"] >= 0
    assert payload["tokens_per_s"] is not None and payload["tokens_per_s"] > 0
    (report,) = session_reports(path)
    assert report["totals"]["mean_ttft_s"] is not None
    assert "first token" in headline(report)[2] and "tok/s" in headline(report)[2]
    assert speed_words(2.5, 19.4) == "⏱ first token 2.5 s · 19 tok/s"
