"""Printers for `paicli run`: progress lines for people, JSON lines for tools.

Both are bus subscribers called from engine threads; a lock keeps lines whole.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import TextIO

from paicli_tui import events as ev
from paicli_tui.present.event_lines import queued_words

_ARG_PREVIEW = 100


def _short(text: str, limit: int = _ARG_PREVIEW) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class TextPrinter:
    """Streams the answer of a single agent; prefixes lines from parallel
    agents with their name so interleaved output stays readable."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self._lock = threading.Lock()
        self._streaming: str | None = None  # actor whose content is mid-line
        self._told_no_usage = False
        self._told_queued: set[str] = set()

    def __call__(self, event: ev.Event) -> None:
        with self._lock:
            self._print(event)

    def _line(self, text: str, stream: TextIO | None = None) -> None:
        if self._streaming is not None:
            self.out.write("\n")
            self._streaming = None
        (stream or self.out).write(text + "\n")
        (stream or self.out).flush()

    def _print(self, event: ev.Event) -> None:
        if isinstance(event, ev.ModelDelta):
            if event.kind == "content" and event.actor == "react":
                self._streaming = event.actor
                self.out.write(event.text)
                self.out.flush()
            return
        if isinstance(event, ev.ModelResponse):
            self._response(event)
        elif isinstance(event, ev.ToolCallStarted):
            self._line(f"→ [{event.actor}] {event.tool} {_short(event.arguments)}")
        elif isinstance(event, ev.ToolCallFinished):
            mark = "✓" if event.ok else "✗"
            self._line(f"  {mark} [{event.actor}] {event.tool}: {_short(event.summary)}")
        elif isinstance(event, ev.ServerProbed) and event.tool_mode == "union":
            self._line(f"! {CONSTRAINED_TOOLS}", self.err)
        elif isinstance(event, ev.ModelQueued) and event.actor not in self._told_queued:
            self._told_queued.add(event.actor)
            self._line(f"… [{event.actor}] {queued_words(event.slots)}", self.err)
        elif isinstance(event, ev.ModelRetry):
            self._line(f"… [{event.actor}] retry {event.attempt} in {event.delay_s:.1f}s: {event.reason}", self.err)
        elif isinstance(event, ev.ModelError):
            self._line(f"✗ [{event.actor}] model call failed: {event.message}", self.err)
        elif isinstance(event, ev.AgentNote):
            self._line(f"! [{event.actor}] {event.text}")
        elif isinstance(event, ev.PlanProposed):
            self._line(f"plan v{event.version} ({event.origin}): {len(event.plan.get('tasks', []))} tasks")
        elif isinstance(event, ev.PlanRejected):
            self._line(f"✗ plan rejected ({event.origin}): {event.error}", self.err)
        elif isinstance(event, (ev.RepairRequested, ev.CapabilityDropped, ev.MemoryDiscarded, ev.MemoryHeld)) or (
                isinstance(event, (ev.McpServerChanged, ev.McpResourceAttached)) and _mcp_problem(event)):
            from paicli_tui.present.event_lines import describe  # pure text, no Textual

            self._line(f"! {describe(event).text}", self.err)
        elif isinstance(event, ev.CheckRan) or (isinstance(event, ev.ReceiptsSent) and event.flags):
            from paicli_tui.present.event_lines import describe

            self._line(describe(event).text)  # type: ignore[union-attr]
        elif isinstance(event, ev.TaskDispatched):
            attempt = f" (attempt {event.attempt})" if event.attempt > 1 else ""
            self._line(f"▶ {event.task_id} → {event.worker}{attempt}")
        elif isinstance(event, ev.TaskStatusChanged) and event.status != "RUNNING":
            detail = _short(event.error or event.result, 120)
            self._line(f"■ {event.task_id} {event.status}" + (f": {detail}" if detail else ""))
        elif isinstance(event, ev.ReplanTriggered):
            self._line(f"↻ replanning after {event.failed_task} failed: {_short(event.reason)}")
        elif isinstance(event, ev.ReviewVerdictGiven):
            verdict = "approved" if event.approved else "rejected"
            if event.approved and event.notes:
                verdict += f" — notes: {_short('; '.join(event.notes))}"
            self._line(f"◆ review {event.step_id} attempt {event.attempt}: {verdict}" + (f" — {_short(event.feedback)}" if event.feedback and not event.approved else ""))
        elif isinstance(event, ev.WorkerReportParsed) and event.status != "completed":
            self._line(f"◆ {event.step_id} report: {event.status} {_short(event.reason)}")
        elif isinstance(event, ev.RunOutcomeRecorded) and event.status == "PARTIAL":
            # The plan ran to its end, but its evidence says nothing was done.
            self._line("\n".join(event.text.splitlines()[:2]))
        elif isinstance(event, ev.RunFinished):
            self._line(event.summary)
            if event.answer:
                # In full: a script reading stdout gets the whole answer.
                self._line(f"\n{event.answer}")
        elif isinstance(event, (ev.RunChangesRecorded, ev.ChangesReverted)):
            from paicli_tui.present.event_lines import changes_line, describe

            line = changes_line(event, "paicli undo") if isinstance(event, ev.RunChangesRecorded) else describe(event)
            self._line(line.text, self.err)
        elif isinstance(event, ev.ApprovalDecided) and event.decision == "edit":
            self._line(f"✎ [{event.actor}] {event.tool} approved with your edits")
        elif isinstance(event, ev.ApprovalDecided) and event.decision not in ("yes", "always", "auto-approved"):
            self._line(f"✗ [{event.actor}] {event.tool} not approved: {event.reason or event.decision}")

    def _response(self, event: ev.ModelResponse) -> None:
        if event.actor == "react" and self._streaming:
            self.out.write("\n")
            self.out.flush()
            self._streaming = None
        elif event.unexecuted_markup:
            self._line(f"! [{event.actor}] reply contains tool-call markup that was not executed: {event.unexecuted_markup}", self.err)
        if not event.usage_reported and not event.usage_estimated and not self._told_no_usage:
            # Once: a server that leaves usage out does so on every streamed reply.
            self._told_no_usage = True
            self._line(f"! [{event.actor}] {NO_USAGE}", self.err)
        elif event.usage_estimated and not self._told_no_usage:
            self._told_no_usage = True
            self._line(f"! [{event.actor}] {USAGE_ESTIMATED}", self.err)


#: Said once per run when a reply came without usage.
NO_USAGE = ("the server sent no token usage with its reply (stream_options ignored): "
            "token counts and token budgets leave such calls out")


#: Said once, when the probe found a server that drops ``tools``.
CONSTRAINED_TOOLS = ("the model server does not turn replies into tool calls: paicli constrains every reply "
                     "to one tool call or a final answer (tool_mode = union)")
USAGE_ESTIMATED = ("the server sent no token usage with its reply (stream_options ignored): "
                   "paicli counts the tokens itself and marks the figures ≈")


def _mcp_problem(event: ev.Event) -> bool:
    """Headless runs mention an MCP server only when something went wrong."""
    if isinstance(event, ev.McpServerChanged):
        return event.state in ("failed", "exited")
    return isinstance(event, ev.McpResourceAttached) and not event.ok


class JsonPrinter:
    """One JSON object per event (streaming deltas left out) on stdout, one
    per line and flushed at once so `jq` can follow a run live. The format
    is docs/events.md: the ledger's events, with a system prompt written out
    only the first time it appears."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self._lock = threading.Lock()
        self._systems_seen: set[str] = set()

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.ModelDelta):
            return
        payload = event.payload()
        with self._lock:
            if isinstance(event, ev.ModelRequest):
                payload = self._system_by_reference(payload)
            line = json.dumps({"event": event.name, "actor": event.actor, **payload}, ensure_ascii=False, default=str)
            self.out.write(line + "\n")
            self.out.flush()

    def _system_by_reference(self, payload: dict) -> dict:
        """Every new agent starts with a system prompt of several KB, most
        of them the same text: after its first appearance it is named by its
        SHA-256 (``{"role": "system", "system_sha256": …}``)."""
        digest = payload.get("system_sha256")
        if not digest:
            return payload
        if digest not in self._systems_seen:
            self._systems_seen.add(digest)
            return payload
        messages = [{"role": "system", "system_sha256": digest} if m.get("role") == "system" else m
                    for m in payload.get("new_messages", [])]
        return {**payload, "new_messages": messages}

    def final(self, data: dict) -> None:
        with self._lock:
            self.out.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")
            self.out.flush()
