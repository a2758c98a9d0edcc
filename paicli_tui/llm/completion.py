"""Reading chat-completion JSON: usage numbers and non-streamed replies."""

from __future__ import annotations

import json
from typing import Any

from paicli_tui.llm.markup import find_unexecuted_markup
from paicli_tui.llm.think import split_think
from paicli_tui.llm.types import ChatResult, ModelResponseError, ToolCall, Usage


def _count(value: Any) -> int:
    try:
        return max(int(value or 0), 0)
    except (TypeError, ValueError):
        return 0


def parse_usage(usage: dict) -> Usage:
    """OpenAI's ``prompt_tokens_details.cached_tokens``, or DeepSeek's
    ``prompt_cache_hit_tokens``, count as cached prompt tokens."""
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    if not cached:
        cached = usage.get("prompt_cache_hit_tokens")
    return Usage(_count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")), _count(cached))


def error_text(error: Any) -> str:
    """The human part of an ``error`` member: a string, or an object with a
    ``message``; anything else is shown as JSON."""
    if isinstance(error, dict):
        message = error.get("message") or error.get("detail") or error.get("msg")
        if isinstance(message, str) and message:
            return message
        return json.dumps(error, ensure_ascii=False)[:200]
    return str(error)


def arguments_text(arguments: Any) -> str:
    """Tool arguments as JSON text; a few servers send an object instead."""
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)


def parse_completion(body: Any, source: str) -> ChatResult:
    """A non-streamed ``chat.completion`` object → ChatResult. ``source``
    (the base URL) names the server in error messages. A ``<think>`` block
    at the start of the content becomes reasoning (llm/think.py)."""
    if not isinstance(body, dict):
        raise ModelResponseError(f"unexpected response from {source}: not a JSON object")
    if body.get("error") is not None:
        raise ModelResponseError(f"{source} reported an error: {error_text(body['error'])[:200]}")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ModelResponseError(f"unexpected response from {source}: no choices")
    choice = choices[0]
    message = choice.get("message") or {}
    content = message.get("content")
    content = content if isinstance(content, str) else ""
    reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
    reasoning = reasoning if isinstance(reasoning, str) else ""
    # A <think> block opening the content is reasoning too (llm/think.py),
    # read exactly as the streamed path reads it.
    thought, content = split_think(content)
    reasoning += thought
    calls = []
    for n, raw in enumerate(message.get("tool_calls") or ()):
        function = raw.get("function") or {}
        calls.append(
            ToolCall(
                id=raw.get("id") or f"call_{n}",
                name=function.get("name") or "",
                arguments=arguments_text(function.get("arguments")),
            )
        )
    legacy = message.get("function_call")
    if not calls and isinstance(legacy, dict):
        calls.append(ToolCall("call_0", legacy.get("name") or "", arguments_text(legacy.get("arguments"))))
    usage = body.get("usage")
    return ChatResult(
        content=content,
        reasoning=reasoning,
        tool_calls=tuple(calls),
        finish_reason=choice.get("finish_reason"),
        usage=parse_usage(usage) if isinstance(usage, dict) else Usage(),
        usage_reported=isinstance(usage, dict),
        unexecuted_markup=find_unexecuted_markup(content),
    )
