"""The ``model_request`` and ``model_response`` events of one call."""

from __future__ import annotations

import hashlib
import json
import threading

from paicli_tui import events as ev
from paicli_tui.llm.structured_output import kind_of
from paicli_tui.llm.types import ChatResult


class RequestEvents:
    """Builds ``model_request`` events. Each holds only the messages an
    agent appended since its previous request (the full list would make the
    ledger grow quadratically)."""

    def __init__(self) -> None:
        self._sent: dict[str, int] = {}
        self._lock = threading.Lock()

    def request(
        self, model: str, messages: list[dict], agent: str, tools: list[dict] | None, call_id: str,
        max_tokens: int | None, response_format: dict | None,
    ) -> ev.ModelRequest:
        with self._lock:
            previous = self._sent.get(agent, 0)
            self._sent[agent] = len(messages)
        new = messages[previous:] if previous <= len(messages) else messages
        system = ""
        if messages and messages[0].get("role") == "system":
            content = messages[0].get("content")
            text = content if isinstance(content, str) else json.dumps(content, sort_keys=True)
            system = hashlib.sha256(text.encode("utf-8")).hexdigest()
        names = tuple((tool.get("function") or {}).get("name") or tool.get("name", "") for tool in tools or ())
        return ev.ModelRequest(
            actor=agent, call_id=call_id, model=model, tools=names,
            message_count=len(messages), system_sha256=system, new_messages=tuple(new),
            max_tokens=max_tokens, response_format="" if response_format is None else kind_of(response_format),
        )


def response_event(result: ChatResult, agent: str, call_id: str, duration: float) -> ev.ModelResponse:
    return ev.ModelResponse(
        actor=agent, call_id=call_id, content=result.content, reasoning=result.reasoning,
        tool_calls=tuple({"id": c.id, "name": c.name, "arguments": c.arguments} for c in result.tool_calls),
        finish_reason=result.finish_reason, prompt_tokens=result.usage.prompt_tokens,
        completion_tokens=result.usage.completion_tokens, cached_tokens=result.usage.cached_tokens,
        duration_s=round(duration, 3), unexecuted_markup=result.unexecuted_markup,
        recovered_tool_calls=result.recovered_tool_calls, usage_reported=result.usage_reported,
        usage_estimated=result.usage.estimated, queued_s=result.queued_s, ttft_s=result.ttft_s,
        tokens_per_s=result.tokens_per_s, constrained_tool_calls=result.constrained_tool_calls,
    )
