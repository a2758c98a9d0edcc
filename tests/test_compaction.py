"""History compaction keeps the system prompt and recent turns."""

from paicli_tui.agent.compaction import STUB_PREFIX, compact, history_chars


def _conversation(turns: int, result_size: int) -> list[dict]:
    messages = [{"role": "system", "content": "system prompt"}]
    for i in range(turns):
        messages.append({"role": "user", "content": f"question {i}"})
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": f"c{i}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": "x" * result_size})
        messages.append({"role": "assistant", "content": f"answer {i}"})
    return messages


def test_small_history_is_left_alone():
    assert compact(_conversation(2, 10), max_chars=10_000) is None


def test_old_tool_results_become_stubs_and_recent_turns_stay():
    messages = _conversation(6, 5_000)
    result = compact(messages, max_chars=15_000)
    assert result is not None
    assert result.messages[0] == messages[0]
    tool_messages = [m for m in result.messages if m["role"] == "tool"]
    assert all(m["content"].startswith(STUB_PREFIX) for m in tool_messages[:-2])
    assert tool_messages[-1]["content"] == "x" * 5_000
    assert tool_messages[-2]["content"] == "x" * 5_000
    assert result.stubbed == 4 and result.dropped == 0
    assert history_chars(result.messages) <= 15_000
    # the input list was not modified
    assert messages[3]["content"] == "x" * 5_000


def test_whole_old_turns_are_dropped_when_stubs_are_not_enough():
    messages = _conversation(10, 10)
    for m in messages:
        if m["role"] == "user":
            m["content"] = "q" * 2_000
    result = compact(messages, max_chars=5_000)
    assert result is not None and result.dropped > 0
    assert result.messages[0]["role"] == "system"
    assert result.messages[1]["role"] == "user"
    # tool results still follow their assistant tool call
    for i, m in enumerate(result.messages):
        if m["role"] == "tool":
            assert result.messages[i - 1].get("tool_calls")
