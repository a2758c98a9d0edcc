"""The ReAct loop every agent runs (P-6.1): check cancel → check budget →
compact → call the model → no tool calls means done, otherwise run the tools,
append the results and go round again.

Every model call carries the budget's deadline, so a time limit holds during
a streaming call too; a stop asks for a summary (PARTIAL, P-6.7) in a call of
its own. A reply with neither text nor tool calls is not an answer: the turn
fails with EMPTY_REPLY_ERROR (no re-ask: a model that just said nothing
rarely says more when asked again, and the caller can retry)."""

from __future__ import annotations

import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Literal

from paicli_tui.agent.budget import Budget
from paicli_tui.agent.cost_meter import CostMeter
from paicli_tui.agent.compaction import compact
from paicli_tui.agent.guard import RunawayGuard
from paicli_tui.events import AgentFinished, AgentNote, Compaction, EventBus, HistoryCleared, ToolCallFinished, ToolCallStarted
from paicli_tui.llm.types import (
    ChatResult, ModelBudgetCut, ModelCancelled, ModelDeadlineError, ModelError, ModelNotStarted, ToolCall, Usage,
)
from paicli_tui.llm.role_client import repair_request
from paicli_tui.llm.tool_union import UnreadableUnionReply

if TYPE_CHECKING:
    from paicli_tui.llm.client import ChatClient
    from paicli_tui.policy.approval import Approver
    from paicli_tui.tools.base import ToolResult
    from paicli_tui.agent.registry import ToolRegistry
    from paicli_tui.tools.trusted_urls import TrustedUrls

OutcomeStatus = Literal["final", "partial", "cancelled", "failed"]
READ_PARALLELISM = 4  # P-6.4
NO_TOOLS_ERROR = "this role has no tools; tool call not executed"
EMPTY_REPLY_ERROR = "the model returned an empty reply"
#: Why a summary is not asked for after a budget that leaves nothing to pay it with.
NO_SUMMARY = "no summary call: it would go past the limit"
SUMMARY_REQUEST = (
    "Stop using tools now ({reason}). Reply with a concise summary of what you found and did so far, "
    "and what is still left to do."
)


@dataclass(frozen=True)
class AgentOutcome:
    status: OutcomeStatus
    text: str
    reason: str = ""
    usage: Usage = field(default_factory=Usage)


#: An opening or closing wrapper tag inside tool output, in any case and
#: spacing (``</TOOL-RESULT >``, ``< tool_result trust="trusted">``).
_WRAPPER_TAG = re.compile(r"<(?=\s*/?\s*tool[-_\s]*result\b)", re.IGNORECASE)


def wrap_tool_result(content: str) -> str:
    """Tool output is data, never instructions (P-6.6). A wrapper tag inside
    the output is neutralised (its ``<`` becomes ``&lt;``), so the output can
    neither close the wrapper nor open a forged "trusted" one: the model sees
    exactly one wrapper, and the text stays readable."""
    return f'<tool-result trust="untrusted-data">\n{_WRAPPER_TAG.sub("&lt;", content)}\n</tool-result>'


class Agent:
    """One agent instance: a name, a fixed system prompt and its own history.

    ``registry=None`` makes a tool-less role (planner, reviewer): its requests
    carry no tools and any tool call it makes is refused, not executed.
    """

    def __init__(
        self,
        name: str,
        *,
        client: "ChatClient",
        system_prompt: str,
        registry: "ToolRegistry | None" = None,
        bus: EventBus | None = None,
        approver: "Approver | None" = None,
        approval_mode: str = "auto",
        budget: Budget | None = None,
        max_history_chars: int = 120_000,
        tool_view: "Callable[[list[dict]], list[dict]] | None" = None,
        context_chars: "Callable[[], int | None] | None" = None,
    ) -> None:
        self.name = name
        self.client = client
        self.registry = registry
        self.bus = bus
        self.approver = approver
        self.approval_mode = approval_mode
        self.budget = budget or Budget()
        self.max_history_chars = max_history_chars
        #: What the agent is offered of its registry's tools (the compact
        #: profile: a task type's tools, one-line descriptions); None: all.
        self.tool_view = tool_view
        #: The history the server's real context holds, in characters, once
        #: known (a probe); history is compacted to the smaller of the two.
        self.context_chars = context_chars
        self.messages: list[dict] = [{"role": "system", "content": system_prompt}]
        self.usage = Usage()
        #: What this agent works on, for approval dialogs ("step_2: add tests").
        self.task_label = ""

    # -- history -------------------------------------------------------------

    def clear_history(self) -> int:
        """Forget everything but the system prompt (P-5.4)."""
        dropped = len(self.messages) - 1
        del self.messages[1:]
        self._publish(HistoryCleared(self.name, dropped))
        return dropped

    def add_user_message(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    # -- the loop --------------------------------------------------------------

    def run_turn(
        self,
        user_text: str | None,
        *,
        cancel: threading.Event,
        trusted_urls: "TrustedUrls | None" = None,
    ) -> AgentOutcome:
        """Append ``user_text`` (unless None: the caller already added the
        messages) and loop until the model answers without tool calls."""
        if user_text is not None:
            self.add_user_message(user_text)
        self.budget.restart_clock()
        turn_usage = Usage()
        guard = RunawayGuard()
        repaired = False
        try:
            while True:
                if cancel.is_set():
                    return self._finish("cancelled", "cancelled", "cancelled by the user", turn_usage)
                limit = self.budget.exceeded_kind()
                if limit:
                    return self._summarise(limit, cancel, turn_usage)
                self._maybe_compact()
                try:
                    result = self._call(cancel, with_tools=self.registry is not None,
                                        deadline=self.budget.work_deadline())
                except ModelBudgetCut:
                    return self._summarise(self.budget.exceeded_kind() or ("cost", "cost limit reached"), cancel,
                                           turn_usage)
                except ModelNotStarted as exc:
                    # Never sent: a summary call would queue behind the same calls.
                    self._publish(AgentNote(self.name, f"[stopped] {exc}"))
                    return self._finish("partial", _last_text(self.messages), str(exc), turn_usage)
                except ModelDeadlineError:
                    return self._summarise(self.budget.exceeded_kind() or self.budget.time_stop(), cancel, turn_usage)
                except UnreadableUnionReply as exc:
                    if repaired:
                        raise
                    # Once a turn, as for plans: the reply goes back with its exact error.
                    repaired = True
                    self.budget.charge(0)
                    self.messages += [{"role": "assistant", "content": exc.reply},
                                      {"role": "user", "content": repair_request(str(exc))}]
                    continue
                turn_usage = turn_usage + result.usage
                self.messages.append(result.assistant_message())
                if not result.tool_calls:
                    if not result.content.strip():
                        return self._finish("failed", "", EMPTY_REPLY_ERROR, turn_usage)
                    return self._finish("final", result.content, "", turn_usage)
                if self.registry is None:
                    return self._finish("failed", result.content, NO_TOOLS_ERROR, turn_usage)
                stop = self._run_tools(result.tool_calls, cancel, trusted_urls, guard)
                if cancel.is_set():
                    return self._finish("cancelled", "cancelled", "cancelled by the user", turn_usage)
                if stop:
                    return self._summarise(("guard", stop), cancel, turn_usage)
        except ModelCancelled:
            return self._finish("cancelled", "cancelled", "cancelled by the user", turn_usage)
        except ModelError as exc:
            return self._finish("failed", "", str(exc), turn_usage)

    def _call(self, cancel: threading.Event, *, with_tools: bool, deadline: float | None) -> ChatResult:
        tools = self._offered() if (with_tools and self.registry is not None) else None
        limit = self.budget.run_deadline()
        queue_limit = {} if limit is None else {"hard_deadline": limit}
        meter = CostMeter.for_call(self.budget, self.messages, tools)
        try:
            result = self.client.chat(self.messages, agent=self.name, tools=tools or None, cancel=cancel,
                                      deadline=deadline, on_delta=meter.on_delta if meter else None, **queue_limit)
        except ModelBudgetCut:
            assert meter is not None
            meter.charge_cut()
            raise
        # Time queued for a server slot is not this agent's: its clock starts when its call is sent.
        self.budget.credit(result.queued_s)
        self.usage = self.usage + result.usage
        price_of = self.budget.pricing()
        self.budget.charge(result.usage.total, price_of(result.usage) if price_of is not None else 0.0)
        return result

    def _summarise(self, limit: tuple[str, str], cancel: threading.Event, usage: Usage) -> AgentOutcome:
        """One last tool-less call so a stopped agent still reports (PARTIAL),
        inside the limit that stopped it: by the time limit's own end; none
        after a token, turn or cost limit, which leave nothing to pay it with."""
        kind, reason = limit
        if not self.budget.summary_fits(kind):
            self._publish(AgentNote(self.name, f"[stopped] {reason}; {NO_SUMMARY}"))
            return self._finish("partial", _last_text(self.messages), f"{reason}; {NO_SUMMARY}", usage)
        self.messages.append({"role": "user", "content": SUMMARY_REQUEST.format(reason=reason)})
        self._publish(AgentNote(self.name, f"[stopped] {reason}; asking for a summary"))
        deadline = self.budget.deadline()
        try:
            result = self._call(cancel, with_tools=False, deadline=deadline)
        except ModelCancelled:
            return self._finish("cancelled", "cancelled", "cancelled by the user", usage)
        except ModelError as exc:
            return self._finish("partial", "", f"{reason}; summary call failed: {exc}", usage)
        self.messages.append(result.assistant_message())
        return self._finish("partial", result.content, reason, usage + result.usage)

    def _finish(self, status: OutcomeStatus, text: str, reason: str, usage: Usage) -> AgentOutcome:
        self._publish(AgentFinished(self.name, status, text, reason))
        return AgentOutcome(status, text, reason, usage)

    def _offered(self) -> list[dict]:
        assert self.registry is not None
        schemas = self.registry.schemas()
        return self.tool_view(schemas) if self.tool_view is not None else schemas

    def _maybe_compact(self) -> None:
        limit = self.max_history_chars
        fits = self.context_chars() if self.context_chars is not None else None
        compacted = compact(self.messages, min(limit, fits) if fits else limit)
        if compacted is None:
            return
        before = len(self.messages)
        self.messages[:] = compacted.messages
        self._publish(Compaction(self.name, before, len(self.messages), compacted.stubbed))

    # -- tools -------------------------------------------------------------------

    def _run_tools(
        self,
        calls: tuple[ToolCall, ...],
        cancel: threading.Event,
        trusted_urls: "TrustedUrls | None",
        guard: RunawayGuard,
    ) -> str | None:
        """Run one response's calls: consecutive read-only calls up to four at
        a time, everything else alone and in order. Returns a stop reason when
        the runaway guard ends the loop."""
        from paicli_tui.tools.base import ToolContext
        from paicli_tui.tools.trusted_urls import TrustedUrls

        assert self.registry is not None
        context = ToolContext(
            actor=self.name,
            cancel=cancel,
            trusted_urls=trusted_urls if trusted_urls is not None else TrustedUrls(),
            approver=self.approver if self.approver is not None else _deny_all(),
            approval_mode=self.approval_mode,
            bus=self.bus,
            task=self.task_label,
        )
        results: list[ToolResult] = []
        offered = {(s.get("function") or s)["name"] for s in self._offered()} if self.tool_view is not None else None
        for group in self._groups(calls):
            if cancel.is_set():
                break
            for call in group:
                self._publish(ToolCallStarted(self.name, call.id, call.name, call.arguments))
            if len(group) == 1:
                outcomes = [self._execute(group[0], context, offered)]
            else:
                with ThreadPoolExecutor(max_workers=READ_PARALLELISM, thread_name_prefix=f"{self.name}-read") as pool:
                    outcomes = list(pool.map(lambda c: self._execute(c, context, offered), group))
            for call, outcome in zip(group, outcomes):
                self._publish(ToolCallFinished(self.name, call.id, call.name, outcome.ok, outcome.summary, outcome.content))
            results.extend(outcomes)

        stop: str | None = None
        notes: list[str] = []
        for call, outcome in zip(calls, results + [None] * (len(calls) - len(results))):
            content = wrap_tool_result(outcome.content) if outcome is not None else wrap_tool_result("not run: cancelled")
            self.messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
            if outcome is None:
                continue
            verdict = guard.observe(call.name, call.arguments, outcome.ok, outcome.content)
            if verdict.stop and stop is None:
                stop = f"runaway guard: {call.name} called 5 times in a row with the same arguments"
            if verdict.note:
                notes.append(verdict.note)
        # A tool's follow-up (load_skill's body) is a message of its own: the
        # tool results of one response must stay together, so it comes after them.
        for outcome in results:
            if outcome.follow_up:
                self.messages.append({"role": "user", "content": outcome.follow_up})
        for note in notes:
            self._publish(AgentNote(self.name, note))
            self.messages.append({"role": "user", "content": note})
        return stop

    def _execute(self, call: ToolCall, context, offered: set[str] | None) -> ToolResult:
        from paicli_tui.tools.base import ToolResult

        assert self.registry is not None
        if offered is not None and call.name not in offered and call.name in self.registry.names():
            names = ", ".join(sorted(offered)) or "none"
            return ToolResult(False, f"{call.name} is not offered for this task; offered tools: {names}",
                              f"{call.name} not offered")
        return self.registry.execute(call, context)

    def _groups(self, calls: tuple[ToolCall, ...]) -> list[list[ToolCall]]:
        assert self.registry is not None
        groups: list[list[ToolCall]] = []
        for call in calls:
            read_only = self.registry.is_read_only(call.name)
            if read_only and groups and len(groups[-1]) < READ_PARALLELISM and self.registry.is_read_only(groups[-1][0].name):
                groups[-1].append(call)
            else:
                groups.append([call])
        return groups

    def _publish(self, event) -> None:
        if self.bus is not None:
            self.bus.publish(event)


def _last_text(messages: list[dict]) -> str:
    """The latest thing the agent said in words (what it has to show after a stop)."""
    for message in reversed(messages):
        if message.get("role") == "assistant" and isinstance(message.get("content"), str) and message["content"].strip():
            return message["content"]
    return ""


def _deny_all():
    from paicli_tui.policy.approval import DenyApprover

    return DenyApprover()
