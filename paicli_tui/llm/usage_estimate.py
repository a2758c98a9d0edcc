"""Token counts for a reply that came without usage.

llama-cpp-python sends no usage on a streamed reply (it ignores
``stream_options``). A call then still costs tokens: budgets must see
them and the figures must not say 0. The count comes from the server's own
tokenizer when the probe found one (``/extras/tokenize/count``,
``/tokenize``), else from characters; either way it is marked estimated
(``Usage.estimated``), which every figure shows as ``≈``.

The chat template adds a few tokens per message (``<|im_start|>role\\n``,
``<|im_end|>\\n``) and a reply header: measured on SmolLM2 with
llama-cpp-python, about 5 a message plus 4.
"""

from __future__ import annotations

import json
import math
from typing import Callable

from paicli_tui.llm.types import ChatResult, Usage

#: Characters per token for prose and code on common tokenizers (measured
#: 3.95 on SmolLM2 for prompt prose; a little lower for code).
CHARS_PER_TOKEN = 3.6
PER_MESSAGE = 5
PER_REPLY = 4

Counter = Callable[[str], int]


def by_characters(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def message_text(message: dict) -> str:
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False) if content else ""
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        text += f"{function.get('name', '')} {function.get('arguments', '')}"
    return text


def estimate(
    messages: list[dict], result: ChatResult, counter: Counter | None = None, deltas: int = 0,
    tools: list[dict] | None = None,
) -> Usage:
    """The usage of one call as the server would have counted it, marked
    estimated. ``deltas`` (streamed pieces) is a floor for the completion:
    llama.cpp sends one token per piece."""
    count = counter or by_characters
    prompt_text = "\n".join(message_text(message) for message in messages)
    if tools:
        prompt_text += "\n" + json.dumps(tools, ensure_ascii=False)
    prompt = count(prompt_text) + PER_MESSAGE * len(messages) + PER_REPLY
    reply = result.reasoning + result.content + "".join(c.name + c.arguments for c in result.tool_calls)
    completion = max(count(reply), deltas) if reply else deltas
    return Usage(prompt, completion, 0, estimated=True)
