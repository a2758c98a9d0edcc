"""Detect tool-call markup left in a reply's text (P-1.6).

Some servers fail to parse a model's native tool-call syntax and hand it back
as plain content; the call then silently never runs. The agent loop flags such
a reply to the person instead of treating it as a final answer.
"""

from __future__ import annotations

import re

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
