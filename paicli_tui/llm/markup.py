"""Detect tool-call markup left in a reply's text (P-1.6), and, where the
person opted in, read Hermes/Qwen ``<tool_call>`` blocks as real calls.

Some servers fail to parse a model's native tool-call syntax and hand it back
as plain content; the call then silently never runs. The agent loop flags such
a reply to the person instead of treating it as a final answer.
"""

from __future__ import annotations

import dataclasses
import json
import re

from paicli_tui.llm.types import ChatResult, ToolCall

# Native tool-call openers of common open-weight model families, as they
# appear when the serving stack did not turn them into `tool_calls`.
_MARKERS = (
    r"<[|｜]DSML[|｜]function_calls>",  # DeepSeek V3.2 (ASCII and full-width bars)
    r"<｜tool▁calls?▁begin｜>",  # DeepSeek V3 / R1
    r"<｜tool▁call▁begin｜>",
    r"<\|tool_calls?_begin\|>",  # the same, typed with ASCII characters
    r"<\|tool_call\|>",  # Phi / Granite style
    r"<tool_calls?>",  # Hermes, Qwen 2.5/3, GLM
    r"<function_calls?>",  # Claude-style XML from fine-tunes
    r"<function=[\w.\-]+>",  # Qwen3-Coder / Llama XML calls
    r"\[TOOL_CALLS\]",  # Mistral
    r"<\|python_tag\|>",  # Llama 3.1 built-in tools
    r"<\|channel\|>commentary to=functions\.",  # gpt-oss harmony format
    r"<\|action_start\|><\|plugin\|>",  # InternLM
)
_MARKUP = re.compile("|".join(_MARKERS), re.IGNORECASE)

# Markup quoted in a fenced block or inline code is an example, not a call.
_QUOTED = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)


def find_unexecuted_markup(content: str) -> str | None:
    """The first tool-call marker in ``content`` outside code quotes, or None."""
    if not content or ("<" not in content and "[" not in content):
        return None
    if "`" in content:
        content = _QUOTED.sub("", content)
    match = _MARKUP.search(content)
    return match.group(0) if match else None


# A Hermes / Qwen block: one JSON object between the tags.
_TOOL_CALL_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


def recover_tool_calls(result: ChatResult) -> ChatResult:
    """``result`` with its ``<tool_call>{"name": …, "arguments": {…}}</tool_call>``
    blocks (outside code quotes) turned into ToolCalls and cut from the
    content, counted in ``recovered_tool_calls``. Only for a reply without
    real tool calls (the setting ``tool_calls_in_content``). All or nothing:
    when one block is not such an object, nothing is converted and the
    markup stays flagged, as it would be without the setting; the calls are
    then validated and approved by the registry like any other."""
    content = result.content
    if result.tool_calls or "<tool_call>" not in content:
        return result
    quoted = [m.span() for m in _QUOTED.finditer(content)] if "`" in content else []
    calls: list[ToolCall] = []
    kept: list[str] = []
    start = 0
    for match in _TOOL_CALL_BLOCK.finditer(content):
        if any(a <= match.start() < b for a, b in quoted):
            continue
        call = _call_from_text(match.group(1), len(calls))
        if call is None:
            return result
        calls.append(call)
        kept.append(content[start:match.start()])
        start = match.end()
    if not calls:
        return result
    rest = "".join(kept + [content[start:]]).strip()
    return dataclasses.replace(
        result, content=rest, tool_calls=tuple(calls), recovered_tool_calls=len(calls),
        unexecuted_markup=find_unexecuted_markup(rest),
    )


def _call_from_text(text: str, n: int) -> ToolCall | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    name, arguments = data.get("name"), data.get("arguments", {})
    if not isinstance(name, str) or not name.strip() or not isinstance(arguments, (dict, str)):
        return None
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return ToolCall(f"text_call_{n}", name.strip(), raw)
