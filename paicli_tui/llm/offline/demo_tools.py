"""Which real read-only tools the demo model calls next, and with what.

Argument names are taken from the schemas the request offers, so the demo
keeps working if a tool names its path argument differently.
"""

from __future__ import annotations

from typing import Literal

from paicli_tui.llm.offline.demo_conversation import Conversation
from paicli_tui.llm.offline.demo_findings import config_name, listing_names, looks_failed, readme_name
from paicli_tui.llm.offline.demo_intent import Intent, match_listing

Call = tuple[str, dict]
Job = Literal["react", "readme", "config", "sources", "summary", "survey"]

SOURCE_GLOB = "**/*.py"
DEFINITIONS = "def |class "

_SYNONYMS = {
    "path": ("path", "file_path", "file", "filename", "directory", "dir"),
    "pattern": ("pattern", "glob", "regex", "query", "expression"),
}


def call(conversation: Conversation, tool: str, **arguments: str) -> Call | None:
    """``tool`` with ``arguments`` renamed to fit its offered schema, or None
    when the request does not offer that tool."""
    if not conversation.offers(tool):
        return None
    properties = conversation.tool_schemas[tool].get("properties") or {}
    required = conversation.tool_schemas[tool].get("required") or []
    fitted: dict = {}
    for key, value in arguments.items():
        fitted[_fit_name(key, properties, required, fitted)] = value
    return tool, fitted


def _fit_name(key: str, properties: dict, required: list, taken: dict) -> str:
    if not properties or key in properties:
        return key
    for synonym in _SYNONYMS.get(key, ()):
        if synonym in properties and synonym not in taken:
            return synonym
    free = [name for name in required if name not in taken and isinstance(name, str)]
    return free[0] if free else key


def next_calls(job: Job, conversation: Conversation) -> list[Call]:
    """The tool calls for the next step of ``job``; empty means answer now."""
    if not conversation.has_tools:
        return []
    rounds = conversation.tool_rounds_this_turn()
    outcomes = conversation.outcomes_this_turn()
    wanted: list[Call | None]
    if rounds == 0:
        wanted = [call(conversation, "list_dir", path=".")]
        if job == "sources":
            wanted.append(call(conversation, "glob_files", pattern=SOURCE_GLOB))
    elif rounds == 1 and job in ("react", "readme", "config"):
        names = listing_names(outcomes)
        target = readme_name(names) if job != "config" else config_name(names)
        if target:
            wanted = [call(conversation, "read_file", path=target)]
        elif job == "react":
            wanted = [call(conversation, "grep_code", pattern=DEFINITIONS)]
        else:
            wanted = []
    else:
        wanted = []
    return [c for c in wanted if c is not None]


def react_calls(conversation: Conversation, intent: Intent) -> list[Call]:
    """The interactive agent's next calls for what the question asked: the
    named file or folder, a search, or (for anything else) the overview."""
    if not conversation.has_tools or intent.kind == "greeting":
        return []
    rounds = conversation.tool_rounds_this_turn()
    outcomes = conversation.outcomes_this_turn()
    wanted: list[Call | None] = []
    if intent.kind == "path":
        attached = {outcome.arguments["path"] for outcome in intent.attached}
        if rounds == 0:
            wanted = [_look_at(conversation, path) for path in intent.targets if path not in attached]
        elif rounds == 1:
            # A path without a suffix may still be a file, and the other way round.
            wanted = [call(conversation, "list_dir", path=str(o.arguments.get("path", "")))
                      for o in outcomes if o.name == "read_file" and "directory" in o.content[:200] and looks_failed(o)]
    elif intent.kind == "search":
        wanted = [call(conversation, "grep_code", pattern=intent.targets[0])] if rounds == 0 else []
    elif intent.kind == "words" and rounds == 1:
        target = match_listing(intent.targets, listing_names(outcomes))
        if target is None:
            return next_calls("react", conversation)
        wanted = [_look_at(conversation, target)]
    else:
        return next_calls("react", conversation)
    return [c for c in wanted if c is not None]


def _look_at(conversation: Conversation, path: str) -> Call | None:
    leaf = path.rstrip("/").rsplit("/", 1)[-1]
    if path.endswith("/") or "." not in leaf.lstrip("."):
        return call(conversation, "list_dir", path=path.rstrip("/") or ".")
    return call(conversation, "read_file", path=path)
