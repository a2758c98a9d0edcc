"""Deciding whether a validated tool call may run (P-6.5, P-9.6).

In this order:
1. a deny rule of the person's refuses the call, in every mode, unasked;
2. a command is always checked for risk (rules, then the optional model
   check), whatever the mode and whatever was granted; a risky command asks
   every time and "Always" is not offered for it;
3. a tool that always asks (revert_turn) asks in every mode, and no grant
   spares it;
4. ask mode asks for writes, edits and commands, unless a grant or an allow
   rule covers the call; auto and plan run writes and safe commands;
5. a tool may ask for itself (``Tool.approval_reason``: an MCP tool asks in
   ask mode, and in auto unless its server marks it read-only), again unless
   a grant or an allow rule covers the call.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from paicli_tui.events import ApprovalDecided, ApprovalRequested, GrantAdded
from paicli_tui.policy.redaction import Redactor
from paicli_tui.policy.approval import ApprovalAnswer, ApprovalRequest, Decision, as_answer
from paicli_tui.tools.base import Tool, ToolContext, ToolError
from paicli_tui.policy.grants import GrantStore, proposed_grants
from paicli_tui.policy.risk import RiskVerdict, classify_command

NEEDS_APPROVAL_IN_ASK = frozenset({"write_file", "edit_file", "execute_command"})
RiskChecker = Callable[[str], "RiskVerdict | None"]
ASK_REASONS = {
    "execute_command": "ASK mode: every command waits for your yes",
    "write_file": "ASK mode: every file change waits for your yes",
    "edit_file": "ASK mode: every file change waits for your yes",
}


@dataclass(frozen=True)
class GateOutcome:
    allowed: bool
    denial: str = ""
    """The text returned to the model when not allowed."""
    arguments: dict[str, Any] | None = None
    """The person's edited arguments, to run instead of the model's."""
    network: bool = False
    """A command may reach the network: a ``network: allow`` rule covers it
    or the person chose "yes, with network" (the sandbox keeps it off
    otherwise)."""


ALLOWED = GateOutcome(True)


class ApprovalGate:
    def __init__(self, workspace: Path, grants: GrantStore, risk_checker: RiskChecker | None = None,
                 redactor: "Redactor | None" = None, *, offline: bool = False,
                 written: "Callable[[], tuple[frozenset[Path], int | None]] | None" = None) -> None:
        self.workspace = workspace
        #: Commands run without the network unless a rule or the person
        #: allows it (the sandbox is on and its network off by default).
        self.offline = offline
        self.grants = grants
        self.risk_checker = risk_checker
        self.redactor = redactor if redactor is not None else Redactor()
        #: Files changed after this are the session's own: running one as a
        #: script runs text the model chose, so it is risky. Once a run has
        #: begun, ``written`` (the checkpoint recorder's) names the files its
        #: tools changed and when it began.
        self.started_ns = time.time_ns()
        self.written = written

    def check(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> GateOutcome:
        """Raises ToolError (from ``tool.preview``) when the call cannot
        succeed anyway, so nobody is asked about a doomed call."""
        rule = self.grants.denying(tool.name, args, self.workspace)
        if rule is not None:
            reason = f"denied by your rule `{rule.rule}`"
            self._publish(ctx, ApprovalDecided(ctx.actor, tool.name, "auto-denied", reason))
            return GateOutcome(False, reason)
        network = self._network_rule(tool, args)
        allowed = GateOutcome(True, network=network)
        asking = ctx.approval_mode == "ask" and tool.name in NEEDS_APPROVAL_IN_ASK
        verdict = self._risk(args["command"], network) if tool.name == "execute_command" else RiskVerdict(False, "")
        if verdict.risky:
            reason = f"risky: {verdict.reason}"
        elif tool.always_asks:
            reason = tool.always_asks
        elif asking:
            reason = ASK_REASONS[tool.name]
        elif own := tool.approval_reason(ctx.approval_mode):
            reason = own
        else:
            return allowed
        preview = tool.preview(args)
        grantable = not verdict.risky and not tool.always_asks
        if grantable:
            grant = self.grants.allowing(tool.name, args, self.workspace)
            if grant is not None:
                self._publish(ctx, ApprovalDecided(ctx.actor, tool.name, "auto-approved", f"granted: {grant.describe()}"))
                return allowed
        offered = proposed_grants(tool.name, args, self.workspace) if grantable else ()
        # The person sees where a secret is, never its value (the approver
        # may print to a terminal or a log).
        scrub = self.redactor.scrub
        request = ApprovalRequest(ctx.actor, tool.name, scrub(args), scrub(reason), scrub(preview), grants=offered,
                                  risky=verdict.risky, workdir=str(self.workspace), task=ctx.task,
                                  call_id=ctx.call_id,
                                  network_choice=self.offline and tool.name == "execute_command" and not network)
        answer = self._ask(request, ctx)
        if answer.network and request.network_choice:
            allowed = GateOutcome(True, network=True)
        if answer.decision is Decision.ALWAYS:
            grant = answer.grant or (offered[0] if offered else None)
            if grant is not None and grant in offered and self.grants.add(grant):
                self._publish(ctx, GrantAdded(ctx.actor, grant.rule, grant.describe()))
            return allowed
        if answer.decision is Decision.YES:
            return allowed
        if answer.decision is Decision.EDIT:
            return self._edited(tool, args, answer)
        return GateOutcome(False, self._denial(answer, verdict, ctx))

    @staticmethod
    def _denial(answer: ApprovalAnswer, verdict: RiskVerdict, ctx: ToolContext) -> str:
        """What the model reads back: the person's reason word for word when
        they gave one."""
        note = f"the person said: {answer.reason}" if answer.reason else getattr(ctx.approver, "denial_reason", "")
        if not verdict.risky:
            return f"denied by the user; {note}" if answer.reason else note or "denied by the user"
        prefix = "[AUTO] " if ctx.approval_mode != "ask" else ""
        return f"{prefix}denied: {verdict.reason}" + (f" ({note})" if note else "")

    def _network_rule(self, tool: Tool, args: dict[str, Any]) -> bool:
        if not self.offline or tool.name != "execute_command":
            return False
        return self.grants.network_allowing(str(args.get("command", ""))) is not None

    def _edited(self, tool: Tool, args: dict[str, Any], answer: ApprovalAnswer) -> GateOutcome:
        field = {"execute_command": "command", "write_file": "content", "edit_file": "new_string"}.get(tool.name)
        if field is None or answer.edited is None:
            return GateOutcome(False, "denied: this call cannot be edited")
        if field == "command" and not answer.edited.strip():
            raise ToolError("the edited command is empty; nothing ran")
        edited = {**args, field: answer.edited}
        tool.preview(edited)  # an edit that cannot succeed is refused like any doomed call
        network = self._network_rule(tool, edited) or (answer.network and field == "command")
        return GateOutcome(True, arguments=edited, network=network)

    def _risk(self, command: str, network_allowed: bool = False) -> RiskVerdict:
        if self.redactor.contains(command):
            # The model only has the value if it leaked: never pass it on unasked.
            return RiskVerdict(True, "the command contains a secret this session knows (shown as [REDACTED])")
        files, since = self.written() if self.written is not None else (frozenset(), None)
        verdict = classify_command(command, self.workspace, since if since is not None else self.started_ns, files,
                                   network_allowed=network_allowed)
        if verdict.risky or self.risk_checker is None:
            return verdict
        try:
            extra = self.risk_checker(command)
        except Exception as exc:  # the model check failing must not wave a command through
            return RiskVerdict(True, f"risk check unavailable ({type(exc).__name__})")
        return extra if extra is not None else verdict

    def _ask(self, request: ApprovalRequest, ctx: ToolContext) -> ApprovalAnswer:
        scope = request.grants[0].rule if request.grants else ""
        self._publish(ctx, ApprovalRequested(ctx.actor, request.tool, json.dumps(request.arguments, sort_keys=True),
                                             request.reason, request.risky, scope))
        try:
            answer = as_answer(ctx.approver.request(request))
        except Exception as exc:
            self._publish(ctx, ApprovalDecided(ctx.actor, request.tool, Decision.NO.value,
                                               f"approver failed: {type(exc).__name__}"))
            return ApprovalAnswer(Decision.NO)
        edited = ""
        if answer.decision is Decision.EDIT and answer.edited is not None and request.editable:
            edited = json.dumps({**request.arguments, request.editable: answer.edited}, sort_keys=True)
        said = answer.reason or request.reason
        if answer.network and request.network_choice:
            said = f"with the network: {said}"
        self._publish(ctx, ApprovalDecided(ctx.actor, request.tool, answer.decision.value, said, edited))
        return answer

    @staticmethod
    def _publish(ctx: ToolContext, event) -> None:
        if ctx.bus is not None:
            ctx.bus.publish(event)
