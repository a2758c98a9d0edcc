"""A <think> block opening the content is reasoning (issue 16 item 4): the
splitter alone, the streamed and non-streamed client paths over the loopback
server, the ledger, and a reasoning planner whose plan is accepted."""

from __future__ import annotations

import json
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paicli_tui.events import EventBus, ModelResponse
from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.offline.scripted import Reply
from paicli_tui.llm.sse import StreamAccumulator
from paicli_tui.llm.think import ThinkSplitter, split_think
from paicli_tui.llm.types import Delta
from paicli_tui.plan.planner import Planner
from paicli_tui.prompting.assembler import PromptAssembler

PLAN = json.dumps({"summary": "s", "steps": [{"id": "a", "description": "read the README"}]})


def fed(pieces: list[str]) -> tuple[str, str, list[tuple[str, str]]]:
    splitter = ThinkSplitter()
    out: list[tuple[str, str]] = []
    for piece in pieces:
        out += splitter.feed(piece)
    out += splitter.finish()
    reasoning = "".join(text for kind, text in out if kind == "reasoning")
    content = "".join(text for kind, text in out if kind == "content")
    return reasoning, content, out


def test_a_block_at_the_start_is_reasoning_and_the_answer_follows_it():
    assert split_think("<think>plan it</think>\n\n{\"a\": 1}") == ("plan it", '{"a": 1}')
    assert split_think("  \n<think>x</think>answer") == ("x", "answer")


def test_a_think_later_in_the_content_is_left_alone():
    text = "The tag <think>x</think> is how R1 writes it."
    assert split_think(text) == ("", text)
    assert split_think("<b>bold</b> <think>no</think>") == ("", "<b>bold</b> <think>no</think>")


def test_an_unclosed_block_is_all_reasoning_and_the_content_is_empty():
    assert split_think("<think>still thinking when the stream ended") == ("still thinking when the stream ended", "")
    assert fed(["<think>abc</thi"]) [:2] == ("abc</thi", "")


def test_a_lone_start_of_the_tag_or_only_whitespace_stays_content():
    assert split_think("<thi") == ("", "<thi")
    assert fed(["  ", "\n"])[:2] == ("", "  \n")
    assert fed(["<thin", "g>"])[:2] == ("", "<thing>")


def test_tags_split_across_chunks_are_never_shown_as_content():
    reasoning, content, out = fed(["<thi", "nk>ste", "p one</th", "ink>", "\n\n", '{"ok"', ": true}"])
    assert (reasoning, content) == ("step one", '{"ok": true}')
    assert all("<" not in text for kind, text in out if kind == "content" and text != '{"ok"')
    # Reasoning is emitted while it streams, not held until the close.
    assert out[0] == ("reasoning", "ste")


@settings(max_examples=300, deadline=None)
@given(
    text=st.sampled_from(
        [
            "<think>a</think>b",
            " \n<think>\nlong thought with </thin and <think> inside\n</think>\n\n{\"x\": 1}",
            "<think>never closed",
            "plain answer <think>x</think>",
            "<thinking>not our tag</thinking>",
            "<thi",
            "   ",
            "<think></think>",
            "<tool_call>{}</tool_call>",
        ]
    ),
    cuts=st.lists(st.integers(min_value=0, max_value=80), max_size=8),
)
def test_any_split_of_the_same_text_gives_the_same_content_and_reasoning(text, cuts):
    points = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]
    assert fed(pieces)[:2] == split_think(text) == fed([text])[:2]


def test_the_accumulator_emits_reasoning_deltas_for_the_block():
    accumulator = StreamAccumulator()
    deltas: list[Delta] = []
    for piece in ["<think>", "why", "</think>", "ok"]:
        deltas += accumulator.add({"choices": [{"index": 0, "delta": {"content": piece}}]})
    deltas += accumulator.flush()
    assert deltas == [Delta("reasoning", "why"), Delta("content", "ok")]
    result = accumulator.result()
    assert (result.reasoning, result.content) == ("why", "ok")


@pytest.fixture
def bus():
    bus = EventBus("sess-1")
    bus.events = []
    bus.subscribe(bus.events.append)
    return bus


@pytest.mark.parametrize("stream", [True, False])
def test_the_client_splits_the_block_and_the_ledger_event_has_both(server, script, bus, stream):
    script.add("react", Reply(content="<think>I should greet</think>\n\nHello!", chunk_chars=3))
    seen: list[Delta] = []
    with ChatClient(base_url=server.base_url, model="m", session_id="s", bus=bus) as client:
        result = client.chat([{"role": "user", "content": "hi"}], agent="react", stream=stream, on_delta=seen.append)
    assert (result.reasoning, result.content) == ("I should greet", "Hello!")
    assert "".join(d.text for d in seen if d.kind == "content") == "Hello!"
    assert "".join(d.text for d in seen if d.kind == "reasoning") == "I should greet"
    [response] = [e for e in bus.events if isinstance(e, ModelResponse)]
    assert (response.reasoning, response.content) == ("I should greet", "Hello!")


def test_an_unclosed_block_streamed_ends_as_reasoning_with_empty_content(server, script):
    script.add("react", Reply(content="<think>hmm, maybe</thi", chunk_chars=4))
    seen: list[Delta] = []
    with ChatClient(base_url=server.base_url, model="m") as client:
        result = client.chat([{"role": "user", "content": "hi"}], agent="react", on_delta=seen.append)
    assert (result.reasoning, result.content) == ("hmm, maybe</thi", "")
    assert [d.kind for d in seen] == ["reasoning"] * len(seen)


def test_a_reasoning_planner_that_thinks_out_loud_gets_its_plan_accepted(server, script, tmp_path):
    script.add("planner", Reply(content=f"<think>\nThe goal needs one step.\n</think>\n\n{PLAN}", chunk_chars=7))
    with ChatClient(base_url=server.base_url, model="m") as client:
        plan = Planner(client, PromptAssembler(tmp_path)).create("read it", threading.Event())
    assert [task.description for task in plan.tasks] == ["read the README"]
