"""The chat client as one agent sees it: the output limit and structured
output that suit the agent's role are added to every call (issue 16), so
the agent loop stays the same for every role.

A call with tools is tool-loop work (``tool_max_tokens``); a tool-less call
is a final answer (``max_tokens`` and, when given, ``response_format``). A
tool loop never carries a ``response_format``: a server that constrains
the reply to a schema would keep the model from calling tools."""

from __future__ import annotations

from typing import Any

from paicli_tui.llm.types import ChatResult


class RoleClient:
    def __init__(
        self,
        client: Any,
        *,
        max_tokens: int | None = None,
        tool_max_tokens: int | None = None,
        response_format: dict | None = None,
        final_format: dict | None = None,
    ) -> None:
        self.client = client
        #: What a tool-loop reply's final answer must be when the client
        #: constrains replies to a tool call or an answer (a team worker's
        #: report: its first report is then already the JSON object).
        self.final_format = final_format
        self.max_tokens = max_tokens
        self.tool_max_tokens = tool_max_tokens
        self.response_format = response_format
        #: The last reply and the limit it was asked with, for a caller that
        #: must tell a truncated reply (finish_reason "length") from a bad one.
        self.last: ChatResult | None = None
        self.last_limit: int | None = None

    def chat(self, messages: list[dict], *, agent: str, tools: Any = None, **options: Any) -> ChatResult:
        if tools:
            options.setdefault("max_tokens", self.tool_max_tokens)
            if self.final_format is not None and getattr(self.client, "tool_mode", "native") == "union":
                options.setdefault("final_format", self.final_format)
        else:
            options.setdefault("max_tokens", self.max_tokens)
            options.setdefault("response_format", self.response_format)
        result = self.client.chat(messages, agent=agent, tools=tools, **options)
        self.last, self.last_limit = result, options["max_tokens"]
        return result

    def truncated_at(self) -> int | None:
        """How many tokens the last reply was cut at, when the server said
        it stopped at the limit; None when it was not cut."""
        last = self.last
        if last is None or last.finish_reason != "length":
            return None
        return self.last_limit or last.usage.completion_tokens or 0

    def __getattr__(self, name: str) -> Any:
        # model, model_label, base_url …: everything else is the client's.
        return getattr(self.client, name)


def truncated(what: str, tokens: int) -> str:
    """The error for a reply the server cut at its output limit: it is not
    malformed, it is unfinished."""
    return f'{what} truncated at {tokens} tokens (finish_reason "length")'


def repair_request(error: str) -> str:
    """The user message that sends a rejected reply back with its exact error."""
    return f"Your reply was rejected: {error}\nReply with only the corrected JSON."
