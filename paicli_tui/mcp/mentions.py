"""``@server:uri`` in what the person types: a resource of an MCP server,
attached to the turn (P-9.1).

``find_mentions`` is pure text handling, for the engine and for the input
line (highlighting, completion): a mention is ``@`` at the start of a word,
the name of a configured server, ``:`` and a URI up to the next space
(trailing punctuation such as ``.`` or ``)`` is not part of it).
``attach_mentions`` reads each resource and appends its content to the turn
as untrusted data, bounded; a resource that cannot be read becomes a short
note instead, and the turn goes on.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from paicli_tui.events import McpResourceAttached

if TYPE_CHECKING:
    from paicli_tui.events import EventBus
    from paicli_tui.mcp.manager import McpManager

_MENTION = re.compile(r"(?<!\S)@([A-Za-z0-9][A-Za-z0-9_-]*):(\S+)")
_TRAILING = ".,;:!?)]}'\""
#: Attachments one turn may carry; more are named, not read.
MAX_MENTIONS = 4
READ_TIMEOUT_S = 30.0
#: An opening or closing attachment tag inside the content is neutralised,
#: as tool results neutralise theirs (P-6.6).
_WRAPPER_TAG = re.compile(r"<(?=\s*/?\s*mcp[-_\s]*resource\b)", re.IGNORECASE)


@dataclass(frozen=True)
class Mention:
    server: str
    uri: str
    start: int
    end: int

    @property
    def text(self) -> str:
        return f"@{self.server}:{self.uri}"


def find_mentions(text: str, servers: Iterable[str]) -> list[Mention]:
    """Every ``@server:uri`` whose server is one of ``servers``, in order."""
    known = set(servers)
    found = []
    for match in _MENTION.finditer(text):
        server, uri = match.group(1), match.group(2).rstrip(_TRAILING)
        if server in known and uri:
            start = match.start()
            found.append(Mention(server, uri, start, start + 2 + len(server) + len(uri)))
    return found


def attach_mentions(text: str, manager: "McpManager", bus: "EventBus | None", actor: str = "session",
                    cancel: threading.Event | None = None) -> str:
    """``text`` followed by the content of each resource it mentions."""
    mentions = _unique(find_mentions(text, manager.names))
    if not mentions:
        return text
    limit = manager.settings.max_resource_chars
    blocks = []
    for mention in mentions[:MAX_MENTIONS]:
        blocks.append(_attachment(mention, manager, bus, actor, limit, cancel))
    for mention in mentions[MAX_MENTIONS:]:
        blocks.append(f"[{mention.text} was not attached: at most {MAX_MENTIONS} resources go with one message]")
    return text + "\n\n" + "\n\n".join(blocks)


def _attachment(mention: Mention, manager: "McpManager", bus, actor: str, limit: int, cancel) -> str:
    from paicli_tui.tools.base import ToolError

    try:
        result = manager.read_resource(mention.server, mention.uri, READ_TIMEOUT_S, cancel)
    except ToolError as exc:
        _publish(bus, McpResourceAttached(actor, mention.server, mention.uri, False, detail=str(exc)))
        return f"[{mention.text} could not be attached: {exc}]"
    content = resource_text(result)
    truncated = len(content) > limit
    if truncated:
        content = content[:limit] + f"\n[… cut by paicli at {limit} characters]"
    _publish(bus, McpResourceAttached(actor, mention.server, mention.uri, True, min(len(content), limit), truncated))
    body = _WRAPPER_TAG.sub("&lt;", content)
    return (f'<mcp-resource server="{mention.server}" uri="{_attribute(mention.uri)}" trust="untrusted-data">\n'
            f"{body}\n</mcp-resource>")


def resource_text(result) -> str:
    """The text of a ``ReadResourceResult``; binary parts as a note."""
    parts = []
    for contents in result.contents or ():
        text = getattr(contents, "text", None)
        if text is not None:
            parts.append(text)
        else:
            mime = getattr(contents, "mimeType", None) or "unknown type"
            parts.append(f"[binary content of {contents.uri}: {mime}, not shown]")
    return "\n".join(parts)


def _unique(mentions: list[Mention]) -> list[Mention]:
    seen, out = set(), []
    for mention in mentions:
        if mention.text not in seen:
            seen.add(mention.text)
            out.append(mention)
    return out


def _attribute(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def _publish(bus, event) -> None:
    if bus is not None:
        bus.publish(event)
