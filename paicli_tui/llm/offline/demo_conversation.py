"""How the demo model reads a request: who is asking, what the turn is, which
tools were already called and what they returned.

Everything the demo model decides comes from this view of one request, so two
identical requests always get identical replies (P-1.7) and concurrent agents
never share state.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_TURN_CONTEXT = re.compile(r"<paicli-turn-context>.*?</paicli-turn-context>\s*", re.DOTALL)
_APPROVAL_MODE = re.compile(r"<paicli-turn-context>.*?^Approval mode: (\w+)$.*?</paicli-turn-context>", re.DOTALL | re.MULTILINE)
_TOOL_RESULT = re.compile(r"^\s*<tool-result\b[^>]*>\n?(.*?)\n?</tool-result>\s*$", re.DOTALL)
# Notes the agent loop appends as user messages; they do not open a new turn.
_LOOP_NOTE_PREFIXES = ("[runaway guard]",)


@dataclass(frozen=True)
class ToolOutcome:
    """One tool call the model made earlier and the text that came back."""

    name: str
    arguments: dict
    content: str


@dataclass(frozen=True)
class Conversation:
    agent: str
    messages: tuple[dict, ...]
    #: Offered tools by name → their JSON Schema ``parameters`` (empty: none offered).
    tool_schemas: dict[str, dict] = field(default_factory=dict)

    @classmethod
    def from_body(cls, agent: str, body: dict) -> "Conversation":
        raw_messages = body.get("messages") if isinstance(body, dict) else None
        messages = tuple(m for m in (raw_messages or []) if isinstance(m, dict))
        schemas: dict[str, dict] = {}
        for tool in (body.get("tools") or []) if isinstance(body, dict) else []:
            function = tool.get("function") if isinstance(tool, dict) else None
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                parameters = function.get("parameters")
                schemas[function["name"]] = parameters if isinstance(parameters, dict) else {}
        return cls(agent=agent or "", messages=messages, tool_schemas=schemas)

    # -- text of the conversation ---------------------------------------------

    @property
    def system(self) -> str:
        return next((_text(m) for m in self.messages if m.get("role") == "system"), "")

    @property
    def first_user(self) -> str:
        return next((_strip_context(_text(m)) for m in self.messages if m.get("role") == "user"), "")

    @property
    def last_user(self) -> str:
        index = self._turn_start()
        return _strip_context(_text(self.messages[index])) if index is not None else ""

    @property
    def approval_mode(self) -> str:
        """The mode the turn context names ("" when it names none)."""
        index = self._turn_start()
        match = _APPROVAL_MODE.search(_text(self.messages[index])) if index is not None else None
        return match.group(1) if match else ""

    @property
    def has_tools(self) -> bool:
        return bool(self.tool_schemas)

    def offers(self, tool: str) -> bool:
        return tool in self.tool_schemas

    # -- tool history --------------------------------------------------------------

    def tool_rounds_this_turn(self) -> int:
        """Assistant replies with tool calls since the turn's user message."""
        start = self._turn_start()
        tail = self.messages[start + 1 :] if start is not None else self.messages
        return sum(1 for m in tail if m.get("role") == "assistant" and m.get("tool_calls"))

    def outcomes_this_turn(self) -> list[ToolOutcome]:
        start = self._turn_start()
        return self._outcomes(self.messages[start + 1 :] if start is not None else self.messages)

    def all_outcomes(self) -> list[ToolOutcome]:
        return self._outcomes(self.messages)

    def _outcomes(self, messages: tuple[dict, ...]) -> list[ToolOutcome]:
        calls: dict[str, tuple[str, dict]] = {}
        outcomes: list[ToolOutcome] = []
        for message in messages:
            if message.get("role") == "assistant":
                for call in message.get("tool_calls") or []:
                    parsed = _parse_call(call)
                    if parsed is not None:
                        calls[parsed[0]] = parsed[1:]
            elif message.get("role") == "tool":
                found = calls.get(str(message.get("tool_call_id", "")))
                if found is not None:
                    outcomes.append(ToolOutcome(found[0], found[1], unwrap_tool_result(_text(message))))
        return outcomes

    def _turn_start(self) -> int | None:
        for index in range(len(self.messages) - 1, -1, -1):
            message = self.messages[index]
            if message.get("role") == "user" and not _text(message).lstrip().startswith(_LOOP_NOTE_PREFIXES):
                return index
        return None


def unwrap_tool_result(text: str) -> str:
    match = _TOOL_RESULT.match(text)
    return match.group(1) if match else text


def _strip_context(text: str) -> str:
    return _TURN_CONTEXT.sub("", text).strip()


def _text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def _parse_call(call: object) -> tuple[str, str, dict] | None:
    if not isinstance(call, dict):
        return None
    function = call.get("function") or {}
    name = function.get("name") if isinstance(function, dict) else None
    if not isinstance(name, str):
        return None
    raw = function.get("arguments", "")
    try:
        arguments = json.loads(raw) if isinstance(raw, str) and raw.strip() else (raw if isinstance(raw, dict) else {})
    except json.JSONDecodeError:
        arguments = {}
    return str(call.get("id", "")), name, arguments if isinstance(arguments, dict) else {}
