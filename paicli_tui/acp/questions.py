"""The person's answers through the editor: tool approvals and plan
reviews as ``session/request_permission``. Called on engine threads."""

from __future__ import annotations

import itertools
import threading
from typing import TYPE_CHECKING, Callable

from acp import text_block, tool_content
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from paicli_tui.acp.translate import call_key, tool_kind, tool_title
from paicli_tui.plan.review import ReviewDecision, full_plan
from paicli_tui.policy.approval import PREVIEW_LINES_SHOWN, ApprovalAnswer, ApprovalRequest, Decision

if TYPE_CHECKING:
    from paicli_tui.acp.bridge import UpdatePump
    from paicli_tui.plan.model import Plan

DENIED_IN_EDITOR = "denied in the editor"


class AcpApprover:
    """Allow once / allow always (the narrowest grant the gate offers; a
    risky call offers none) / reject."""

    denial_reason = DENIED_IN_EDITOR

    def __init__(self, pump: "UpdatePump", connection: Callable[[], object], session_id: str,
                 cancelled: Callable[[], bool]) -> None:
        self.pump = pump
        self.connection = connection
        self.session_id = session_id
        self.cancelled = cancelled

    def request(self, request: ApprovalRequest) -> ApprovalAnswer:
        options = [PermissionOption(option_id="yes", name="Allow", kind="allow_once")]
        if request.grants:
            options.append(PermissionOption(option_id="always", name=f"Always: {request.grants[0].describe()}",
                                            kind="allow_always"))
        options.append(PermissionOption(option_id="no", name="Reject", kind="reject_once"))
        preview = "\n".join(request.preview.splitlines()[:PREVIEW_LINES_SHOWN])
        key = call_key(request.actor, request.call_id) if request.call_id else f"{request.actor}:approval"
        tool_call = ToolCallUpdate(tool_call_id=key, title=tool_title(request.tool, request.arguments),
                                   kind=tool_kind(request.tool), status="pending",  # type: ignore[arg-type]
                                   content=[tool_content(text_block(f"{request.reason}\n\n{preview}".strip()))])
        response = self.pump.ask(lambda: self.connection().request_permission(  # type: ignore[attr-defined]
            session_id=self.session_id, tool_call=tool_call, options=options), self.cancelled)
        choice = _chosen(response)
        if choice == "always" and request.grants:
            return ApprovalAnswer(Decision.ALWAYS, grant=request.grants[0])
        if choice == "yes":
            return ApprovalAnswer(Decision.YES)
        return ApprovalAnswer(Decision.NO, reason=DENIED_IN_EDITOR)


class AcpPlanReviewer:
    """Run or cancel a plan; the plan itself is already on the editor's
    plan view. ACP has no free-text answer, so an amendment is a new
    prompt (docs/acp.md)."""

    _numbers = itertools.count(1)

    def __init__(self, pump: "UpdatePump", connection: Callable[[], object], session_id: str,
                 cancelled: Callable[[], bool]) -> None:
        self.pump = pump
        self.connection = connection
        self.session_id = session_id
        self.cancelled = cancelled
        self._lock = threading.Lock()

    def review(self, plan: "Plan", goal: str) -> ReviewDecision:
        rounds = len(plan.batches())
        title = f"Run this plan? ({len(plan.tasks)} tasks in {rounds} round{'s' if rounds != 1 else ''})"
        tool_call = ToolCallUpdate(tool_call_id=f"plan-review-{next(self._numbers)}", title=title, kind="think",
                                   status="pending", content=[tool_content(text_block(f"Goal: {goal}\n\n{full_plan(plan)}"))])
        options = [PermissionOption(option_id="run", name="Run", kind="allow_once"),
                   PermissionOption(option_id="cancel", name="Cancel", kind="reject_once")]
        response = self.pump.ask(lambda: self.connection().request_permission(  # type: ignore[attr-defined]
            session_id=self.session_id, tool_call=tool_call, options=options), self.cancelled)
        return ReviewDecision("run" if _chosen(response) == "run" else "cancel")

    def report_error(self, message: str) -> None:
        """A revision the planner got wrong: a note in the editor (never a print:
        stdout is the protocol)."""
        from acp import update_agent_thought_text

        self.pump.post(update_agent_thought_text(f"\n{message}\n"))


def _chosen(response) -> str | None:
    outcome = getattr(response, "outcome", None)
    return outcome.option_id if isinstance(outcome, AllowedOutcome) else None
