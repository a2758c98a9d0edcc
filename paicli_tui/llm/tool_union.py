"""Tool calls for servers that do not turn a model's reply into tool calls.

llama-cpp-python (and llama-server with a template lacking tool support)
drop the ``tools`` of a request, and the model never calls one. Where the
server decodes under a JSON Schema grammar, paicli sends instead a union
as ``response_format``: one alternative per offered tool (``{"tool":
NAME, "arguments": {…}}``) and a final answer (``{"final": "…"}``). Every
reply is then one of them by construction, and is read back into a real
tool call, so the agent loop, approvals and the ledger see no difference.

On the wire the transcript is plain text: an assistant turn that called a
tool is its JSON object, a tool result a user turn (templates without tool
support drop tool turns); the agent's own history stays canonical. The
system message gains a short list of the tools (the grammar holds their
parameters; the model needs their names and what they do).
"""

from __future__ import annotations

import json
from dataclasses import replace

from paicli_tui.llm.grammar_text import bounded_text
from paicli_tui.llm.types import ChatResult, ModelResponseError, ToolCall

#: The longest final answer a union reply may hold (characters).
FINAL_CHARS = 600
#: One line per tool in the prompt: its name, parameters, first sentence.
DESCRIPTION_CHARS = 90


class UnreadableUnionReply(ModelResponseError):
    """A union reply that is not one tool call or final answer (e.g. cut at
    the output limit). ``reply`` is its text, for one repair."""

    kind = "unreadable"

    def __init__(self, message: str, reply: str) -> None:
        super().__init__(message)
        self.reply = reply


def _function(tool: dict) -> dict:
    return tool.get("function") or tool


def union_schema(tools: list[dict], final_schema: dict | None = None) -> dict:
    """``final_schema``: what the final answer must be (a worker's report);
    a bounded line of text without it."""
    alternatives = []
    for tool in tools:
        function = _function(tool)
        parameters = function.get("parameters") or {"type": "object"}
        alternatives.append({
            "type": "object",
            "properties": {"tool": {"const": function["name"]}, "arguments": parameters},
            "required": ["tool", "arguments"], "additionalProperties": False,
        })
    alternatives.append({"type": "object", "properties": {"final": final_schema or bounded_text(FINAL_CHARS)},
                         "required": ["final"], "additionalProperties": False})
    return {"anyOf": alternatives}


def tool_lines(tools: list[dict]) -> str:
    lines = ['Reply with exactly one JSON object: {"tool": NAME, "arguments": {...}} to call one tool, '
             'or {"final": "your answer"} when the work is done. Tools:']
    for tool in tools:
        function = _function(tool)
        params = ", ".join((function.get("parameters") or {}).get("properties", {}))
        about = " ".join(str(function.get("description", "")).split()).split(". ")[0][:DESCRIPTION_CHARS]
        lines.append(f"- {function['name']}({params}): {about}")
    return "\n".join(lines)


def as_plain_transcript(messages: list[dict], tools: list[dict]) -> list[dict]:
    """The wire form of ``messages`` in union mode (see the module doc)."""
    names: dict[str, str] = {}
    wire: list[dict] = []
    for message in messages:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            calls = []
            for call in message["tool_calls"]:
                function = call.get("function") or {}
                names[str(call.get("id", ""))] = function.get("name", "")
                try:
                    arguments = json.loads(function.get("arguments") or "{}")
                except ValueError:
                    arguments = function.get("arguments")
                calls.append(json.dumps({"tool": function.get("name", ""), "arguments": arguments}, ensure_ascii=False))
            wire.append({"role": "assistant", "content": "\n".join(calls)})
        elif role == "tool":
            name = names.get(str(message.get("tool_call_id", "")), "the tool")
            wire.append({"role": "user", "content": f"Result of {name}:\n{message.get('content', '')}"})
        else:
            wire.append(message)
    guide = tool_lines(tools)
    if wire and wire[0].get("role") == "system" and isinstance(wire[0].get("content"), str):
        wire[0] = {**wire[0], "content": f"{wire[0]['content']}\n\n{guide}"}
    else:
        wire.insert(0, {"role": "system", "content": guide})
    return wire


def read_union_reply(result: ChatResult, tools: list[dict], call_id: str) -> ChatResult:
    """The reply as a real tool call or a final answer; UnreadableUnionReply
    when it is neither."""
    text = result.content.strip()
    offered = {_function(tool)["name"] for tool in tools}
    if result.finish_reason == "length":
        raise UnreadableUnionReply("the reply was cut at the output limit before it was one complete JSON object", text)
    try:
        # strict=False: llama-cpp-python's grammar lets a free string hold raw newlines.
        data = json.loads(text, strict=False)
    except ValueError as exc:
        raise UnreadableUnionReply(f"the reply is not one JSON object: {exc}", text) from None
    if isinstance(data, dict) and "final" in data and len(data) == 1:
        final = data["final"]
        text = final if isinstance(final, str) else json.dumps(final, ensure_ascii=False)
        return replace(result, content=text, tool_calls=())
    if not isinstance(data, dict) or data.get("tool") not in offered or not isinstance(data.get("arguments"), dict):
        raise UnreadableUnionReply('the reply is neither {"tool": NAME, "arguments": {…}} with an offered tool '
                                   'nor {"final": "…"}', text)
    arguments = json.dumps(data["arguments"], ensure_ascii=False)
    call = ToolCall(f"call_{call_id}", data["tool"], arguments)
    return replace(result, content="", tool_calls=(call,), finish_reason="tool_calls", constrained_tool_calls=1)
