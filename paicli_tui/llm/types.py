"""Data types shared by the model client, the agent loop and the demo model."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal

DeltaKind = Literal["content", "reasoning", "tool_call"]


@dataclass(frozen=True)
class Delta:
    """One streamed fragment handed to ``on_delta`` as it arrives.
    For ``tool_call`` deltas, ``index`` is the call's index and ``tool`` its
    name (once known); ``text`` is an argument fragment."""

    kind: DeltaKind
    text: str
    index: int = 0
    tool: str = ""


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text as the model wrote it

    def to_message(self) -> dict:
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    #: Counted by paicli (the server's tokenizer or characters) because the
    #: server reported none: shown with ``≈``.
    estimated: bool = False
    #: Calls whose server sent no usage and that nobody counted: their
    #: tokens are not in the figures above ("unknown", never 0).
    uncounted_calls: int = 0

    @classmethod
    def of_response(cls, response: Any) -> "Usage":
        """A ``model_response`` event's usage, with its ≈ and an uncounted
        call kept."""
        uncounted = int(not response.usage_reported and not response.usage_estimated)
        return cls(response.prompt_tokens, response.completion_tokens, response.cached_tokens,
                   response.usage_estimated, uncounted)

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_tokens + other.cached_tokens,
            self.estimated or other.estimated,
            self.uncounted_calls + other.uncounted_calls,
        )

    def __sub__(self, other: "Usage") -> "Usage":
        """What was spent since ``other``: still ≈ when any of it was
        counted by paicli (the flag cannot be split, so it stays)."""
        return Usage(
            self.prompt_tokens - other.prompt_tokens,
            self.completion_tokens - other.completion_tokens,
            self.cached_tokens - other.cached_tokens,
            self.estimated,
            self.uncounted_calls - other.uncounted_calls,
        )

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class ChatResult:
    content: str
    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    usage_reported: bool = False
    #: The tool-call markup found in ``content`` that nobody executed (P-1.6).
    unexecuted_markup: str | None = None
    #: How many of ``tool_calls`` were read from text (llm/markup.py).
    recovered_tool_calls: int = 0
    #: Seconds this call waited for a server slot, from sending to the
    #: first streamed piece, and the generation speed (llm/call_clock.py).
    queued_s: float = 0.0
    ttft_s: float | None = None
    tokens_per_s: float | None = None
    #: How many of ``tool_calls`` were read from a reply constrained to the
    #: tool-call union (llm/tool_union.py), not parsed by the server.
    constrained_tool_calls: int = 0

    def assistant_message(self) -> dict:
        """The assistant turn to append to history. Content is ``""`` rather
        than ``None`` when there are tool calls (llama.cpp rejects null)."""
        message: dict = {"role": "assistant", "content": self.content or ""}
        if self.tool_calls:
            message["tool_calls"] = [call.to_message() for call in self.tool_calls]
        return message


DeltaCallback = Callable[[Delta], None]


class ModelError(Exception):
    """A model call failed. ``kind`` is a stable machine-readable word; the
    message is one line that never contains the API key."""

    kind = "error"
    retryable = False


class ModelAuthError(ModelError):
    kind = "auth"


class ModelHTTPError(ModelError):
    kind = "http"

    def __init__(self, message: str, status: int, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        self.retryable = status in (408, 409, 429) or status >= 500


class ModelConnectionError(ModelError):
    kind = "connection"
    retryable = True


class ModelTimeoutError(ModelError):
    kind = "timeout"
    retryable = True


class ModelStreamError(ModelError):
    """The stream broke mid-way or carried something unreadable."""

    kind = "stream"


class ModelInterrupted(ModelStreamError):
    """The stream ended with ``[DONE]`` (or just ended) before any chunk
    carried a ``finish_reason``: the server stopped this reply, as
    llama-cpp-python does to a running stream whenever another request
    arrives (its ``interrupt_requests``). Asking again is the fix, so it is
    retried on an allowance of its own (client.MAX_INTERRUPTION_RETRIES)."""

    kind = "interrupted"
    retryable = True


class ModelResponseError(ModelError):
    """A 200 reply with an empty or malformed body."""

    kind = "response"


#: What a cancelled call says: the person stopped it, nothing failed, and
#: no endpoint is worth naming.
CANCELLED_MESSAGE = "model call cancelled"


class ModelCancelled(ModelError):
    """The caller's cancel Event was set (Esc, Ctrl+C, a signal). Published
    as ``model_cancelled``, never as a ``model_error``."""

    kind = "cancelled"


class ModelDeadlineError(ModelError):
    """The call's deadline (the caller's time budget) passed: the stream was
    closed, or a wait before the reply or before a retry was cut short.
    Not retryable: the time is used up."""

    kind = "deadline"


class ModelNotStarted(ModelDeadlineError):
    """A request queued for a server slot was given up before it was sent:
    what was left of the run's time could not cover a call on that server.
    Nothing was asked, so nothing was lost but the wait."""

    kind = "not_started"


class ModelBudgetCut(ModelDeadlineError):
    """The caller's cost limit was reached while the reply streamed: the
    stream was closed there, as a time limit closes it."""

    kind = "budget"
