"""SSE decoding and chunk accumulation: the quirks real servers produce."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paicli_tui.llm.offline.scripted import Reply, sse_events
from paicli_tui.llm.sse import SSEDecoder, SSELimitError, StreamAccumulator
from paicli_tui.llm.types import Delta, ModelStreamError, ToolCall, Usage


def decode(*reads: bytes) -> list[str]:
    decoder = SSEDecoder()
    events: list[str] = []
    for read in reads:
        events += decoder.feed(read)
    return events + decoder.close()


def chunk(delta: dict | None = None, finish: str | None = None, **extra) -> dict:
    body: dict = {"choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]}
    body.update(extra)
    return body


# -- decoder ----------------------------------------------------------------------


def test_events_split_across_reads_are_reassembled():
    assert decode(b'data: {"a"', b': 1}\n', b"\ndata: [DONE]\n\n") == ['{"a": 1}', "[DONE]"]


def test_comment_lines_and_extra_blank_lines_are_ignored():
    assert decode(b": ping\n\n: ping\n\n\n\ndata: x\n\n: ping\n\n") == ["x"]


def test_several_data_lines_are_joined_with_newlines():
    assert decode(b"data: first\ndata: second\ndata:third\n\n") == ["first\nsecond\nthird"]


@pytest.mark.parametrize("end", [b"\r\n", b"\r", b"\n"])
def test_every_line_ending_works(end):
    body = b"data: one" + end + end + b": ping" + end + end + b"data: two" + end + end
    assert decode(body) == ["one", "two"]


def test_crlf_split_between_two_reads_is_one_line_end():
    assert decode(b"data: a\r", b"\ndata: b\r\n\r\n") == ["a\nb"]


def test_other_fields_are_ignored_and_stray_text_is_kept():
    decoder = SSEDecoder()
    assert decoder.feed(b"event: message\nid: 7\nretry: 100\ndata: x\n\n") == ["x"]
    assert decoder.stray == b""
    assert decoder.feed(b'{"error": "boom"}\n') == []
    assert decoder.stray == b'{"error": "boom"}\n'


def test_last_event_without_blank_line_is_still_delivered():
    assert decode(b"data: a\n\ndata: [DONE]") == ["a", "[DONE]"]


def test_multibyte_text_split_inside_a_character():
    encoded = "data: 你好\n\n".encode()
    assert decode(encoded[:8], encoded[8:]) == ["你好"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=30))
def test_any_split_of_a_stream_gives_the_same_events(cuts):
    body = b"".join(sse_events(Reply(content="héllo wörld " * 3, reasoning="hm", tool_calls=[("t", {"a": 1})], ping_comments=True)))
    body = body.replace(b"\n", b"\r\n")
    reads, position = [], 0
    for cut in cuts:
        reads.append(body[position : position + cut])
        position += cut
    reads.append(body[position:])
    assert decode(*reads) == decode(body)


def test_a_1_mib_line_over_a_thousand_reads_is_one_event():
    payload = "x" * (1024 * 1024)
    line = b"data: " + payload.encode() + b"\n\n"
    assert decode(*[line[i:i + 1000] for i in range(0, len(line), 1000)]) == [payload]


def test_a_lone_cr_after_a_held_piece_still_ends_the_line():
    assert decode(b"data: a", b"b\r", b"\r", b"data: c", b"\r\r") == ["ab", "c"]


def test_a_line_longer_than_the_limit_is_refused_while_it_arrives():
    decoder = SSEDecoder(limit=64 * 1024)
    decoder.feed(b"data: ")
    with pytest.raises(SSELimitError, match="a line of the event stream is longer than"):
        for _ in range(100):
            decoder.feed(b"a" * 4096)
    assert decoder._pending_len == 0  # nothing held after refusing


def test_an_event_of_many_lines_longer_than_the_limit_is_refused():
    decoder = SSEDecoder(limit=64 * 1024)
    with pytest.raises(SSELimitError, match="an event of the event stream is longer than"):
        for _ in range(100):
            decoder.feed(b"data: " + b"a" * 4000 + b"\n")


# -- accumulator --------------------------------------------------------------------


def test_reasoning_and_content_are_kept_apart():
    acc = StreamAccumulator()
    deltas = acc.add(chunk({"reasoning_content": "think "}))
    deltas += acc.add(chunk({"reasoning_content": "more", "content": None}))
    deltas += acc.add(chunk({"content": "answer"}))
    deltas += acc.add(chunk({}, "stop"))
    assert deltas == [Delta("reasoning", "think "), Delta("reasoning", "more"), Delta("content", "answer")]
    result = acc.result()
    assert (result.reasoning, result.content, result.finish_reason) == ("think more", "answer", "stop")


def test_interleaved_tool_calls_are_assembled_by_index():
    acc = StreamAccumulator()
    for index, name in enumerate(["read_file", "list_dir", "grep"]):
        acc.add(chunk({"tool_calls": [{"index": index, "id": f"id{index}", "type": "function", "function": {"name": name, "arguments": ""}}]}))
    for part in ['{"p', 'ath"', ': "x"}']:
        for index in (2, 0, 1):
            acc.add(chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]}))
    acc.add(chunk({}, "tool_calls"))
    assert acc.result().tool_calls == (
        ToolCall("id0", "read_file", '{"path": "x"}'),
        ToolCall("id1", "list_dir", '{"path": "x"}'),
        ToolCall("id2", "grep", '{"path": "x"}'),
    )


def test_name_repeated_in_every_chunk_is_not_concatenated():
    acc = StreamAccumulator()
    for part in ['{"a"', ": 1}"]:
        deltas = acc.add(chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "read_file", "arguments": part}}]}))
        assert deltas == [Delta("tool_call", part, 0, "read_file")]
    assert acc.result().tool_calls == (ToolCall("c1", "read_file", '{"a": 1}'),)


def test_name_sent_in_fragments_is_joined():
    acc = StreamAccumulator()
    acc.add(chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "read_"}}]}))
    acc.add(chunk({"tool_calls": [{"index": 0, "function": {"name": "file", "arguments": "{}"}}]}))
    assert acc.result().tool_calls == (ToolCall("c1", "read_file", "{}"),)


def test_new_id_on_a_reused_index_starts_a_new_call():
    acc = StreamAccumulator()
    acc.add(chunk({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "one", "arguments": "{}"}}]}))
    acc.add(chunk({"tool_calls": [{"index": 0, "id": "b", "function": {"name": "two", "arguments": "{}"}}]}))
    assert [call.name for call in acc.result().tool_calls] == ["one", "two"]


def test_missing_ids_get_stable_ones_and_object_arguments_become_json():
    acc = StreamAccumulator()
    acc.add(chunk({"tool_calls": [{"index": 0, "function": {"name": "t", "arguments": {"k": "v"}}}]}))
    assert acc.result().tool_calls == (ToolCall("call_0", "t", '{"k": "v"}'),)


def test_legacy_function_call_delta():
    acc = StreamAccumulator()
    acc.add(chunk({"function_call": {"name": "t", "arguments": '{"x"'}}))
    acc.add(chunk({"function_call": {"arguments": ": 1}"}}, "function_call"))
    result = acc.result()
    assert result.tool_calls == (ToolCall("call_0", "t", '{"x": 1}'),)
    assert result.finish_reason == "function_call"


def test_usage_in_a_final_chunk_with_empty_choices():
    acc = StreamAccumulator()
    acc.add(chunk({"content": "hi"}, "stop"))
    acc.add(chunk(None, usage={"prompt_tokens": 30, "completion_tokens": 4, "prompt_tokens_details": {"cached_tokens": 16}}))
    result = acc.result()
    assert result.usage == Usage(30, 4, 16)
    assert result.usage_reported


def test_deepseek_cache_hit_tokens_count_as_cached():
    acc = StreamAccumulator()
    acc.add(chunk({}, "stop", usage={"prompt_tokens": 30, "completion_tokens": 4, "prompt_cache_hit_tokens": 24}))
    assert acc.result().usage == Usage(30, 4, 24)


def test_missing_usage_is_reported_as_missing():
    acc = StreamAccumulator()
    acc.add(chunk({"content": "hi"}, "stop", usage=None))
    result = acc.result()
    assert result.usage == Usage() and not result.usage_reported


@pytest.mark.parametrize("reason", ["stop", "length", "tool_calls", "content_filter", "function_call", None])
def test_every_finish_reason_is_kept(reason):
    acc = StreamAccumulator()
    acc.add(chunk({"content": "x"}))
    acc.add(chunk({}, reason))
    assert acc.result().finish_reason == reason


def test_error_object_in_a_chunk_raises_with_its_message():
    acc = StreamAccumulator()
    with pytest.raises(ModelStreamError, match="context length exceeded"):
        acc.add({"error": {"message": "context length exceeded", "code": 400}})


def test_unexecuted_markup_in_content_is_flagged():
    acc = StreamAccumulator()
    acc.add(chunk({"content": 'I will call it.\n<tool_call>{"name": "read_file"}</tool_call>'}, "stop"))
    assert acc.result().unexecuted_markup == "<tool_call>"


def test_scripted_stream_round_trips_through_decoder_and_accumulator():
    reply = Reply(content="hello there", reasoning="why", tool_calls=[("grep", {"pattern": "x"})], usage=Usage(5, 6, 2))
    acc = StreamAccumulator()
    for data in decode(*sse_events(reply, "m")):
        if data != "[DONE]":
            acc.add(json.loads(data))
    result = acc.result()
    assert (result.content, result.reasoning, result.usage) == ("hello there", "why", Usage(5, 6, 2))
    assert result.tool_calls == (ToolCall("call_0", "grep", '{"pattern": "x"}'),)
    assert result.finish_reason == "tool_calls"


def test_assistant_turn_with_only_tool_calls_carries_empty_content():
    acc = StreamAccumulator()
    for data in decode(*sse_events(Reply(tool_calls=[("grep", "{}")]))):
        if data != "[DONE]":
            acc.add(json.loads(data))
    message = acc.result().assistant_message()
    assert message["content"] == "" and message["tool_calls"][0]["function"]["name"] == "grep"
