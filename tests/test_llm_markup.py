"""P-1.6: tool-call markup that reached the content unexecuted."""

from __future__ import annotations

import pytest

from paicli_tui.llm.markup import find_unexecuted_markup


@pytest.mark.parametrize(
    "content, marker",
    [
        ('<|DSML|function_calls>\n<|DSML|invoke name="read_file">', "<|DSML|function_calls>"),
        ("<｜DSML｜function_calls><｜DSML｜invoke>", "<｜DSML｜function_calls>"),
        ('Let me look.\n<tool_call>\n{"name": "read_file"}\n</tool_call>', "<tool_call>"),
        ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function", "<｜tool▁calls▁begin｜>"),
        ('<|tool_call|>[{"name": "x"}]', "<|tool_call|>"),
        ('<function_call>{"name": "x"}</function_call>', "<function_call>"),
        ("<function=read_file>\n<parameter=path>a</parameter>", "<function=read_file>"),
        ('[TOOL_CALLS][{"name": "x", "arguments": {}}]', "[TOOL_CALLS]"),
        ('<|python_tag|>{"name": "x"}', "<|python_tag|>"),
        ("<|channel|>commentary to=functions.read_file", "<|channel|>commentary to=functions."),
    ],
)
def test_markup_is_detected(content, marker):
    assert find_unexecuted_markup(content) == marker


@pytest.mark.parametrize(
    "content",
    [
        "",
        "All done: the file has 3 functions.",
        "Use a <div> here, and compare a < b.",
        "The model emits `<tool_call>` tags when the server cannot parse them.",
        "Example:\n```xml\n<tool_call>{\"name\": \"x\"}</tool_call>\n```\nThat is the format.",
    ],
)
def test_plain_text_and_quoted_examples_are_not_flagged(content):
    assert find_unexecuted_markup(content) is None


def test_markup_after_a_quoted_example_is_still_found():
    assert find_unexecuted_markup("See `<tool_call>` above.\n<tool_call>{}</tool_call>") == "<tool_call>"
