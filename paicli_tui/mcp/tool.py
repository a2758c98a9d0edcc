"""An MCP server's tool as one of the registry's tools: ``mcp__SERVER__TOOL``
with the server's JSON Schema (P-9.1).

The registry validates the arguments against that schema before the call,
asks the gate, and gives the call its deadline; this adapter only runs it
and turns what the server sent into text. A tool is never "read-only" for
the loop's grouping: MCP calls run one at a time in the order the model gave
them (P-6.4). The server's ``readOnlyHint`` only spares the question in auto
mode, when the server is trusted to say so (``trust_read_only``).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from typing import TYPE_CHECKING, Any

import jsonschema
from jsonschema.validators import validator_for

from paicli_tui.tools.base import Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from paicli_tui.mcp.manager import McpManager

PREFIX = "mcp__"
#: OpenAI-compatible servers accept function names of this shape only.
_NAME_OK = re.compile(r"[^A-Za-z0-9_-]")
MAX_NAME = 64
MAX_DESCRIPTION = 1_000
#: Characters of one result the model gets; the rest is cut with a note.
MAX_RESULT_CHARS = 60_000
ASK_REASON = "ASK mode: every MCP tool call waits for your yes"
AUTO_REASON = "an MCP tool that may change things (its server does not mark it read-only)"


def exposed_name(server: str, tool: str, taken: set[str]) -> str:
    """``mcp__server__tool``, made safe for function names: other characters
    become ``_``, a long name keeps a hash of the original, a clash a number."""
    name = PREFIX + server + "__" + _NAME_OK.sub("_", tool)
    if len(name) > MAX_NAME:
        digest = hashlib.sha1(tool.encode()).hexdigest()[:8]
        name = name[: MAX_NAME - 9] + "_" + digest
    base, number = name, 2
    while name in taken:
        suffix = f"_{number}"
        name = base[: MAX_NAME - len(suffix)] + suffix
        number += 1
    return name


class McpTool(Tool):
    read_only = False  # for the loop: MCP calls always run alone, in order

    def __init__(self, manager: "McpManager", server: str, remote, name: str, *, trust_read_only: bool,
                 timeout: float | None) -> None:
        super().__init__(manager.workspace)
        self.manager = manager
        self.server = server
        self.remote_name: str = remote.name
        self.name = name  # type: ignore[misc]  # per instance, not per class
        text = " ".join((remote.description or remote.title or "").split())
        if len(text) > MAX_DESCRIPTION:
            text = text[: MAX_DESCRIPTION - 1] + "…"
        self.description = f"[MCP server {server}] {text}".rstrip()  # type: ignore[misc]
        schema = dict(remote.inputSchema or {})
        schema.setdefault("type", "object")
        if schema.get("type") == "object":
            schema.setdefault("properties", {})
        cls = validator_for(schema, default=jsonschema.Draft202012Validator)
        cls.check_schema(schema)  # SchemaError: the manager leaves the tool out
        self.parameters = schema  # type: ignore[misc]
        self.validator = cls(schema)
        annotations = remote.annotations
        self.read_only_hint = bool(annotations is not None and annotations.readOnlyHint)
        self.trusted_read_only = self.read_only_hint and trust_read_only
        self.call_timeout = timeout

    def approval_reason(self, mode: str) -> str | None:
        if mode == "ask":
            return ASK_REASON
        return None if self.trusted_read_only else AUTO_REASON

    def preview(self, args: dict[str, Any]) -> str:
        arguments = json.dumps(args, indent=2, ensure_ascii=False, sort_keys=True)
        return f"MCP server {self.server}, tool {self.remote_name}\n{self.description}\n\narguments:\n{arguments}"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        seconds = self.call_timeout or 60.0
        if ctx.deadline is not None:
            seconds = max(0.1, ctx.deadline.at - time.monotonic())
        result = self.manager.call_tool(self.server, self.remote_name, args, seconds, ctx.cancel)
        text = result_text(result)
        summary = text.strip().splitlines()[0] if text.strip() else "(no content)"
        if result.isError:
            return ToolResult(False, text or "the tool reported an error without details", f"error: {summary}"[:160])
        return ToolResult(True, text, summary[:160])


def result_text(result) -> str:
    """The text of a ``CallToolResult``: text blocks as they are, other
    blocks as a one-line note, structured content as JSON when there is no
    text; cut at MAX_RESULT_CHARS."""
    parts: list[str] = []
    for block in result.content or ():
        parts.append(block_text(block))
    if not any(part.strip() for part in parts) and result.structuredContent is not None:
        parts = [json.dumps(result.structuredContent, ensure_ascii=False, indent=2)]
    text = "\n".join(parts)
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + f"\n[… {len(text) - MAX_RESULT_CHARS} more characters cut by paicli]"
    return text


def block_text(block) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return block.text
    if kind in ("image", "audio"):
        size = len(getattr(block, "data", "") or "") * 3 // 4
        return f"[{kind}: {getattr(block, 'mimeType', '?')}, about {size} bytes, not shown]"
    if kind == "resource":
        contents = block.resource
        text = getattr(contents, "text", None)
        if text is not None:
            return f"[resource {contents.uri}]\n{text}"
        return f"[binary resource {contents.uri}: {getattr(contents, 'mimeType', None) or 'unknown type'}, not shown]"
    if kind == "resource_link":
        return f"[resource link {block.uri}" + (f" — {block.description}" if block.description else "") + "]"
    return f"[{kind or 'unknown'} content, not shown]"
