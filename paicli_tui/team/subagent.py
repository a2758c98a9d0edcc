"""A team member (P-5.1–P-5.3): a role, an instance name and its own agent
with its own history. Everything it answers is an immutable AgentMessage."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from paicli_tui.agent.loop import NO_TOOLS_ERROR, Agent
from paicli_tui.events import AgentFinished
from paicli_tui.llm.types import ModelCancelled, ModelError
from paicli_tui.team.messages import AgentMessage, AgentRole, MessageType
from paicli_tui.team.structured import parse_review_verdict

if TYPE_CHECKING:
    from typing import Callable

    from paicli_tui.agent.loop import AgentOutcome
    from paicli_tui.tools.trusted_urls import TrustedUrls

ORCHESTRATOR = "orchestrator"


class SubAgent:
    """Only a WORKER may hold tools: a planner's or reviewer's requests carry
    no tool schemas, and a tool call in its reply is refused (the agent loop
    returns "failed" with the no-tools reason, which becomes an ERROR)."""

    def __init__(self, role: AgentRole, name: str, agent: Agent) -> None:
        if role is not AgentRole.WORKER and agent.registry is not None:
            raise ValueError(f"{name}: only workers get tools (P-5.3), not the {role.value.lower()} role")
        self.role = role
        self.name = name
        self.agent = agent
        #: Runs a turn of the agent (text, cancel, trusted URLs) where the
        #: step runner's executor puts it; None runs it here.
        self.turns: "Callable[[str, threading.Event, TrustedUrls | None], AgentOutcome] | None" = None

    def send(
        self,
        message: AgentMessage,
        *,
        cancel: threading.Event,
        trusted_urls: "TrustedUrls | None" = None,
    ) -> AgentMessage:
        """Give the agent ``message`` (a TASK or FEEDBACK) as its next user
        message and run its turn to the end. Workers answer RESULT, PARTIAL
        (a budget stop) or ERROR; a reviewer answers APPROVAL or REJECTION
        (content = the feedback) or ERROR when the call itself failed."""
        if self.turns is not None:
            outcome = self.turns(message.content, cancel, trusted_urls)
        else:
            outcome = self.agent.run_turn(message.content, cancel=cancel, trusted_urls=trusted_urls)
        if outcome.status == "failed":
            return self._reply(outcome.reason or "the model call failed", MessageType.ERROR)
        if outcome.status == "cancelled":
            return self._reply(outcome.reason or "cancelled", MessageType.ERROR)
        if self.role is AgentRole.REVIEWER:
            if outcome.status == "partial":
                return self._reply(f"the review stopped early: {outcome.reason}", MessageType.ERROR)
            verdict = parse_review_verdict(outcome.text)
            kind = MessageType.APPROVAL if verdict.approved else MessageType.REJECTION
            return self._reply(verdict.feedback, kind, verdict.notes)
        kind = MessageType.PARTIAL if outcome.status == "partial" else MessageType.RESULT
        return self._reply(outcome.text, kind)

    def correct(self, text: str, *, cancel: threading.Event, response_format: dict | None = None) -> AgentMessage:
        """Send a rejected reply's error back (issue 16): ``text`` becomes the
        next user message after the rejected reply, and the answer is read as
        ``send`` reads one. A worker answers in one tool-less call, which may
        carry ``response_format``: its repair is a report, not more tool work."""
        if self.role is not AgentRole.WORKER:
            return self.send(AgentMessage(ORCHESTRATOR, None, text, MessageType.FEEDBACK), cancel=cancel)
        agent = self.agent
        agent.add_user_message(text)
        options = {"response_format": response_format} if response_format is not None else {}
        try:
            result = agent.client.chat(agent.messages, agent=self.name, tools=None, cancel=cancel,
                                       deadline=agent.budget.deadline(), **options)
        except ModelCancelled:
            return self._reply("cancelled", MessageType.ERROR)
        except ModelError as exc:
            return self._reply(str(exc), MessageType.ERROR)
        agent.usage = agent.usage + result.usage
        agent.budget.charge(result.usage.total)
        agent.messages.append(result.assistant_message())
        if result.tool_calls:
            return self._finished("failed", result.content, NO_TOOLS_ERROR, MessageType.ERROR)
        return self._finished("final", result.content, "", MessageType.RESULT)

    def truncated_at(self) -> int | None:
        """The token count the agent's last reply was cut at, if it was."""
        check = getattr(self.agent.client, "truncated_at", None)
        return check() if check is not None else None

    def _finished(self, status: str, text: str, reason: str, kind: MessageType) -> AgentMessage:
        if self.agent.bus is not None:
            self.agent.bus.publish(AgentFinished(self.name, status, text, reason))
        return self._reply(reason or text, kind)

    def clear_history(self) -> int:
        """Keep the system prompt only; the agent publishes ``history_clear``."""
        return self.agent.clear_history()

    def _reply(self, content: str, kind: MessageType, notes: tuple[str, ...] = ()) -> AgentMessage:
        return AgentMessage(from_agent=self.name, from_role=self.role, content=content, type=kind, notes=notes)


def task_message(content: str) -> AgentMessage:
    return AgentMessage(from_agent=ORCHESTRATOR, from_role=None, content=content, type=MessageType.TASK)


def feedback_message(content: str) -> AgentMessage:
    return AgentMessage(from_agent=ORCHESTRATOR, from_role=None, content=content, type=MessageType.FEEDBACK)
