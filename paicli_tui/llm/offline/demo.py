"""The offline demo model (P-1.7): a deterministic responder behind an httpx
transport, so `paicli --demo` runs the real client, agent loop, planner,
workers and reviewer with no network and no key.

Every reply is decided from the request alone (the X-PaiCLI-Agent header, the
messages, the offered tools): no clocks, no randomness and no state shared
between calls, so parallel agents cannot disturb each other and the same
request always streams the same bytes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections import deque
from typing import Iterator

import httpx

from paicli_tui.llm.offline.demo_conversation import Conversation
from paicli_tui.llm.offline.demo_plans import planner_reply
from paicli_tui.llm.offline.demo_roles import Turn, react_turn, reviewer_turn, task_turn, worker_turn
from paicli_tui.llm.offline.scripted import RecordedRequest, Reply, ScriptedTransport
from paicli_tui.llm.types import Usage

#: Seconds between streamed chunks: about 60 chunks a second looks like a model.
DEFAULT_PACE = 1 / 60
#: Characters per streamed chunk (a token or two).
CHUNK_CHARS = 6
#: Time to the first chunk, in chunks: a model takes a moment to start.
FIRST_CHUNK_WAIT = 12
RECENT_REQUESTS = 32

# How the scripted renderer writes a tool call's id in its JSON (a JSON
# string value can never contain this unescaped, so content is never touched).
_CALL_ID_PREFIX = b'"id": "call_'

FALLBACK_TEXT = (
    "I am the offline demo model, and I do not have a scripted answer for this request. "
    "Plain questions, `/plan GOAL` and `/team GOAL` show everything the demo can do; "
    "connect a real provider for anything else."
)


class DemoResponder:
    """Maps one request to one reply; never raises."""

    def __call__(self, request: RecordedRequest) -> Reply:
        try:
            conversation = Conversation.from_body(request.agent or "", request.body)
            turn = self.turn(conversation)
        except Exception as exc:  # the demo must answer politely, whatever it is sent
            conversation = Conversation(agent="", messages=())
            turn = Turn(content=f"{FALLBACK_TEXT} (The demo could not read the request: {type(exc).__name__}.)")
        return Reply(
            content=turn.content,
            reasoning=turn.reasoning,
            tool_calls=[(name, arguments) for name, arguments in turn.tool_calls],
            usage=_usage(conversation, turn),
            finish_reason="tool_calls" if turn.tool_calls else "stop",
        )

    @staticmethod
    def turn(conversation: Conversation) -> Turn:
        agent = conversation.agent
        if agent == "react":
            return react_turn(conversation)
        if agent == "planner":
            reasoning, content = planner_reply(conversation)
            return Turn(reasoning=reasoning, content=content)
        if agent.startswith("task_"):
            return task_turn(conversation)
        if agent.startswith("worker-"):
            return worker_turn(conversation)
        if agent == "reviewer" or agent.startswith("reviewer-"):
            return reviewer_turn(conversation)
        return Turn(content=FALLBACK_TEXT)


class DemoTransport(ScriptedTransport):
    """The demo model as an httpx transport. ``pace`` is the pause between
    streamed chunks in seconds (0 for tests)."""

    def __init__(self, pace: float = DEFAULT_PACE) -> None:
        self.pace = max(0.0, pace)
        responder = DemoResponder()
        super().__init__(lambda request: self._paced(responder(request)))
        # A demo session can run for hours; keep only the latest requests
        # (each holds a whole conversation) for debugging.
        self.requests = deque(maxlen=RECENT_REQUESTS)  # type: ignore[assignment]

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        # The scripted renderer numbers tool calls call_0, call_1… in every
        # reply; the demo makes them unique across a conversation (the UI and
        # the ledger key tool rows by id) yet still a pure function of the
        # request, so the same request keeps giving the same bytes.
        digest = hashlib.sha256(request.read()).hexdigest()[:10]
        unique = _CALL_ID_PREFIX + digest.encode() + b"_"
        try:
            body = response.content
        except httpx.ResponseNotRead:
            stream = _RenamedCallIds(response.stream, unique)
            return httpx.Response(response.status_code, headers=response.headers, stream=stream)
        headers = [(k, v) for k, v in response.headers.items() if k.lower() != "content-length"]
        return httpx.Response(response.status_code, headers=headers, content=body.replace(_CALL_ID_PREFIX, unique))

    def _paced(self, reply: Reply) -> Reply:
        return dataclasses.replace(reply, chunk_chars=CHUNK_CHARS, chunk_delay=self.pace, delay=self.pace * FIRST_CHUNK_WAIT)


def _usage(conversation: Conversation, turn: Turn) -> Usage:
    """Token counts at roughly four characters a token. From the second call of
    an agent on, the system prompt counts as cached, as a prefix cache would."""
    prompt_chars = sum(len(str(message.get("content") or "")) for message in conversation.messages)
    completion_chars = len(turn.content) + len(turn.reasoning) + sum(len(str(args)) for _, args in turn.tool_calls)
    prompt = max(1, math.ceil(prompt_chars / 4))
    cached = (len(conversation.system) // 4) if len(conversation.messages) > 2 else 0
    return Usage(prompt_tokens=prompt, completion_tokens=max(1, math.ceil(completion_chars / 4)), cached_tokens=min(cached, prompt))


class _RenamedCallIds(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, unique: bytes) -> None:
        self._inner = inner
        self._unique = unique

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._inner:
            yield chunk.replace(_CALL_ID_PREFIX, self._unique)

    def close(self) -> None:
        self._inner.close()
