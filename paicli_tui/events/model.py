"""Events: model calls (P-1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from paicli_tui.events.base import Event


@dataclass(frozen=True)
class ModelRequest(Event):
    """One chat completion request. ``new_messages`` holds only the messages
    appended since this actor's previous request (the full list would make the
    ledger grow quadratically); ``system_sha256`` lets `verify` check P-2.4."""

    name: ClassVar[str] = "model_request"
    call_id: str
    model: str
    tools: tuple[str, ...]
    message_count: int
    system_sha256: str
    new_messages: tuple[dict, ...] = ()
    #: The output limit sent (None: none), and the ``response_format`` type
    #: sent (``json_schema``, ``json_object``; empty: none).
    max_tokens: int | None = None
    response_format: str = ""


@dataclass(frozen=True)
class ModelDelta(Event):
    """A streamed fragment. ``kind`` is ``content``, ``reasoning`` or
    ``tool_call`` (then ``text`` is an argument fragment and ``tool`` names
    the tool). Not written to the ledger one by one: `model_response` carries
    the whole text."""

    name: ClassVar[str] = "model_delta"
    call_id: str
    kind: str
    text: str
    tool: str = ""


@dataclass(frozen=True)
class ModelResponse(Event):
    name: ClassVar[str] = "model_response"
    call_id: str
    content: str
    reasoning: str
    tool_calls: tuple[dict, ...]
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    duration_s: float
    unexecuted_markup: str | None = None
    #: How many of ``tool_calls`` were read from ``<tool_call>`` text in the
    #: content (``tool_calls_in_content``), not sent as real tool calls.
    recovered_tool_calls: int = 0
    #: False when the server sent no usage for this call (llama-cpp-python
    #: ignores ``stream_options``): the token fields are then 0, not counted.
    usage_reported: bool = True
    #: True when the token fields were counted by paicli (the server's
    #: tokenizer or characters) because the server sent none: shown as ``≈``.
    usage_estimated: bool = False
    #: Seconds waiting for a server slot, to the first streamed piece after
    #: sending, and generation tokens a second (None: not measured).
    queued_s: float = 0.0
    ttft_s: float | None = None
    tokens_per_s: float | None = None
    #: How many of ``tool_calls`` were read from a reply constrained to one
    #: tool call or a final answer (``tool_mode`` union), not from the server.
    constrained_tool_calls: int = 0


@dataclass(frozen=True)
class ModelRetry(Event):
    name: ClassVar[str] = "model_retry"
    call_id: str
    attempt: int
    delay_s: float
    reason: str


@dataclass(frozen=True)
class ServerProbed(Event):
    """What the local model server said about itself on first use
    (llm/server_probe.py): its kind, slots and context (0: unknown), whether
    it counts tokens, whether tool calls reach the model."""

    name: ClassVar[str] = "server_probed"
    kind: str
    base_url: str
    slots: int
    context_tokens: int
    context_source: str
    tokenizer: bool
    tools: str
    structured: str
    #: ``union`` when paicli constrains replies to a tool call or an answer.
    tool_mode: str = "native"


@dataclass(frozen=True)
class ModelQueued(Event):
    """The call waits for one of the model server's ``slots`` (one request
    per slot: llama-cpp-python cuts a running reply short when another
    arrives). Its deadline starts when it is sent."""

    name: ClassVar[str] = "model_queued"
    call_id: str
    slots: int


@dataclass(frozen=True)
class CapabilityDropped(Event):
    """The server refused an optional request field (HTTP 400 naming it, or
    a 5xx naming ``response_format``): the call is sent once more without it
    or in its ``fallback`` form, and no later call of this session sends
    more. ``field`` is ``response_format`` or ``max_tokens``."""

    name: ClassVar[str] = "capability_dropped"
    call_id: str
    field: str
    reason: str
    #: What is sent instead from now on: a weaker ``response_format`` form
    #: (``json_object_schema``, ``json_object``) or ``max_completion_tokens``;
    #: empty when the field is no longer sent at all.
    fallback: str = ""


@dataclass(frozen=True)
class ModelError(Event):
    name: ClassVar[str] = "model_error"
    call_id: str
    kind: str
    message: str


@dataclass(frozen=True)
class ModelCallCancelled(Event):
    """The call was stopped because the person cancelled (not a failure)."""

    name: ClassVar[str] = "model_cancelled"
    call_id: str
