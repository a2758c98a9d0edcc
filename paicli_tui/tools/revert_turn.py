"""revert_turn (P-9.3): the conversation agent undoes the file changes of
its own previous turn. It always asks the person, in every mode, and the
approval shows what would change; a file changed since by someone else is
kept, never overwritten (the person can force that from /undo)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from paicli_tui.tools.base import Tool, ToolContext, ToolError, ToolResult, object_schema, plural

if TYPE_CHECKING:
    from paicli_tui.checkpoints.revert import RevertPlan
    from paicli_tui.checkpoints.service import Checkpoints

#: Only the conversation agent has turns of its own to take back.
CONVERSATION_AGENT = "react"


class RevertTurn(Tool):
    name = "revert_turn"
    description = ("Undo the file changes (write_file, edit_file) of your previous turn in this conversation, once "
                   "the person approves. Files changed since by someone else are kept as they are. What commands "
                   "changed cannot be undone.")
    parameters = object_schema({
        "reason": {"type": "string", "description": "Why the changes should go, in one line for the person."},
    }, [])
    read_only = False
    always_asks = "revert_turn always asks: it puts files back as they were before the agent's previous turn"

    def __init__(self, workspace: Path, checkpoints: "Checkpoints") -> None:
        super().__init__(workspace)
        self.checkpoints = checkpoints

    def _plan(self, actor: str = CONVERSATION_AGENT) -> "RevertPlan":
        if actor != CONVERSATION_AGENT:
            raise ToolError("revert_turn is for the conversation agent; a task's changes are undone from the run "
                            "screen or /undo")
        plan = self.checkpoints.last_turn_plan()
        if plan is None or plan.empty:
            raise ToolError("nothing to revert: no earlier turn of this conversation changed files that are "
                            "not undone yet")
        return plan

    def preview(self, args: dict[str, Any]) -> str:
        plan = self._plan()
        why = " ".join(str(args.get("reason", "")).split())
        parts = [f"reverts {plan.title()}" + (f" — the agent says: {why}" if why else "")]
        for item in plan.files:
            if item.status in ("changed", "lost"):
                parts.append(f"keeps {item.path}: {item.conflict}")
            elif item.status == "ok":
                parts.append(f"▸ {item.path}")
                parts.append(self.checkpoints.diff(plan, item.path))
        if plan.commands:
            parts.append("commands ran in that turn: what they changed is not undone")
        return "\n".join(part.rstrip("\n") for part in parts) + "\n"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        plan = self._plan(ctx.actor)
        result = self.checkpoints.undo(plan, actor=ctx, tool=self.name)
        restored = len(result.restored)
        lines = [f"reverted {plan.title()}: {result.summary()}"]
        if plan.commands:
            lines.append("Commands ran in that turn; whatever they changed is not undone.")
        ok = not result.failed
        return ToolResult(ok, "\n".join(lines), f"reverted {plural(restored, 'file')}" if ok else result.summary())
