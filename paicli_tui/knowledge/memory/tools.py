"""``save_memory`` and ``search_memory``: the agents' side of memory."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from paicli_tui.knowledge.memory.facts import FactError, MAX_FACT_CHARS
from paicli_tui.tools.base import Tool, ToolContext, ToolError, ToolResult, object_schema, plural

if TYPE_CHECKING:
    from paicli_tui.knowledge.service import Knowledge


class KnowledgeTool(Tool):
    def __init__(self, workspace, knowledge: "Knowledge") -> None:
        super().__init__(workspace)
        self.knowledge = knowledge


class SaveMemory(KnowledgeTool):
    name = "save_memory"
    description = (
        "Keep one fact about this project for later work and later sessions: a convention, a command that works, "
        "where something lives, a decision the person made. One or two plain sentences, no secrets. The fact is "
        "kept when this run ends (a cancelled run keeps none); agents of this run find it at once with search_memory."
    )
    parameters = object_schema({
        "fact": {"type": "string", "minLength": 1, "maxLength": MAX_FACT_CHARS, "description": "The fact, on its own."},
    }, ["fact"])
    # Not a workspace change, but a write all the same: never run alongside others.
    read_only = False

    def approval_reason(self, mode: str) -> str | None:
        # A fact is put in front of later sessions: text planted in a file
        # must not become one without the person's yes in ask mode.
        return "ASK mode: a saved fact is shown to later sessions; keep it?" if mode == "ask" else None

    def preview(self, args: dict[str, Any]) -> str:
        return args["fact"]

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            fact = self.knowledge.save_by_agent(args["fact"], ctx.actor)
        except FactError as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(True, f"noted (kept when this run ends): {fact.text}", f"remembered: {_short(fact.text)}")


class SearchMemory(KnowledgeTool):
    name = "search_memory"
    description = (
        "Search the facts saved in this workspace (by the person with /save, or by agents with save_memory) for the "
        "words of a query; best matches first, each with who saved it. Facts are notes and may be out of date."
    )
    parameters = object_schema({
        "query": {"type": "string", "minLength": 1, "description": "Words to look for."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 20, "description": "Most facts to return (default 5)."},
    }, ["query"])

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        limit = args.get("limit", 5)
        pending, kept = self.knowledge.search_memory(args["query"], limit)
        lines = [f"- [new, saved by {fact.agent} in this run] {fact.text}" for fact in pending]
        for fact in kept[: max(0, limit - len(pending))]:
            when = time.strftime("%Y-%m-%d", time.localtime(fact.created))
            lines.append(f"- [{fact.id}, saved by {fact.provenance()} on {when}] {fact.text}")
        if not lines:
            return ToolResult(True, f"no saved fact matches {args['query']!r}", "0 facts")
        return ToolResult(True, "\n".join(lines), f"{plural(len(lines), 'fact')} for {args['query']}")


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
