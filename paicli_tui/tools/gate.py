"""Deciding whether a validated tool call may run (P-6.5).

ask mode: writes, edits and commands need the approver's yes.
auto/plan: reads and writes run; a command runs unless the rule-based
classifier (or the optional model check) calls it risky, in which case the
approver is asked with the reason. "always" is remembered per tool.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from paicli_tui.events import ApprovalDecided, ApprovalRequested
from paicli_tui.redaction import Redactor
from paicli_tui.tools.approval import ApprovalPolicy, ApprovalRequest, Decision
from paicli_tui.tools.base import Tool, ToolContext
from paicli_tui.tools.risk import RiskVerdict, classify_command

NEEDS_APPROVAL_IN_ASK = frozenset({"write_file", "edit_file", "execute_command"})
RiskChecker = Callable[[str], "RiskVerdict | None"]


@dataclass(frozen=True)
class GateOutcome:
    allowed: bool
    denial: str = ""
    """The text returned to the model when not allowed."""


ALLOWED = GateOutcome(True)


class ApprovalGate:
    def __init__(self, workspace: Path, policy: ApprovalPolicy, risk_checker: RiskChecker | None = None,
                 redactor: "Redactor | None" = None) -> None:
        self.workspace = workspace
        self.policy = policy
        self.risk_checker = risk_checker
        self.redactor = redactor if redactor is not None else Redactor()

    def check(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> GateOutcome:
        """Raises ToolError (from ``tool.preview``) when the call cannot
        succeed anyway, so nobody is asked about a doomed call."""
        asking = ctx.approval_mode == "ask"
        if asking and tool.name in NEEDS_APPROVAL_IN_ASK:
            reason = f"{tool.name} needs approval in ask mode"
            if tool.name == "execute_command":
                # The person is asked anyway: the rules only enrich the reason.
                verdict = classify_command(args["command"], self.workspace)
                if verdict.risky:
                    reason += f"; risk: {verdict.reason}"
        elif tool.name == "execute_command":
            verdict = self._risk(args["command"])
            if not verdict.risky:
                return ALLOWED
            reason = verdict.reason
        else:
            return ALLOWED
        preview = tool.preview(args)
        if self.policy.is_always_allowed(tool.name):
            self._publish(ctx, ApprovalDecided(ctx.actor, tool.name, "auto-approved", "always allowed this session"))
            return ALLOWED
        # The person sees where a secret is, never its value (the approver
        # may print to a terminal or a log).
        scrub = self.redactor.scrub
        decision = self._ask(ApprovalRequest(ctx.actor, tool.name, scrub(args), scrub(reason), scrub(preview)), ctx)
        if decision is Decision.ALWAYS:
            self.policy.remember(tool.name)
        if decision in (Decision.YES, Decision.ALWAYS):
            return ALLOWED
        note = getattr(ctx.approver, "denial_reason", "")
        if asking:
            return GateOutcome(False, note or "denied by the user")
        return GateOutcome(False, f"[AUTO] denied: {reason}" + (f" ({note})" if note else ""))

    def _risk(self, command: str) -> RiskVerdict:
        if self.redactor.contains(command):
            # The model only has the value if it leaked: never pass it on unasked.
            return RiskVerdict(True, "the command contains a secret this session knows (shown as [REDACTED])")
        verdict = classify_command(command, self.workspace)
        if verdict.risky or self.risk_checker is None:
            return verdict
        try:
            extra = self.risk_checker(command)
        except Exception as exc:  # the model check failing must not wave a command through
            return RiskVerdict(True, f"risk check unavailable ({type(exc).__name__})")
        return extra if extra is not None else verdict

    def _ask(self, request: ApprovalRequest, ctx: ToolContext) -> Decision:
        self._publish(ctx, ApprovalRequested(ctx.actor, request.tool, json.dumps(request.arguments, sort_keys=True),
                                             request.reason))
        try:
            decision = Decision(ctx.approver.request(request))
        except Exception as exc:
            decision = Decision.NO
            self._publish(ctx, ApprovalDecided(ctx.actor, request.tool, decision.value,
                                               f"approver failed: {type(exc).__name__}"))
            return decision
        self._publish(ctx, ApprovalDecided(ctx.actor, request.tool, decision.value, request.reason))
        return decision

    @staticmethod
    def _publish(ctx: ToolContext, event) -> None:
        if ctx.bus is not None:
            ctx.bus.publish(event)
