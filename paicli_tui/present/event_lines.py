"""One-line descriptions of engine events for the transcript. Pure text:
no Textual here, so the wording is easy to test."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache

from paicli_tui import events as ev
from paicli_tui.plan.outcome import items_on_one_line, outcome_of

#: Keys whose value best names what a tool call touches, in order of preference.
_SUBJECT_KEYS = ("command", "path", "pattern", "url", "query", "glob", "symbol", "fact")
TITLE_ARGUMENT_CHARS = 70


@dataclass(frozen=True)
class Line:
    text: str
    kind: str = "info"  # info | muted | success | warning | error


def parse_arguments(arguments: str) -> dict | None:
    try:
        value = json.loads(arguments) if arguments else {}
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def argument_subject(arguments: str) -> str:
    """The part of a tool call worth showing on one line."""
    parsed = parse_arguments(arguments)
    if parsed is None:
        text = arguments
    else:
        key = next((k for k in _SUBJECT_KEYS if k in parsed), None)
        text = str(parsed[key]) if key else ", ".join(f"{k}={v}" for k, v in parsed.items())
    text = " ".join(text.split())
    if len(text) > TITLE_ARGUMENT_CHARS:
        text = text[: TITLE_ARGUMENT_CHARS - 1] + "…"
    return text


def full_arguments(arguments: str) -> str:
    """Every argument in full, one per line (commands and paths are never cut)."""
    parsed = parse_arguments(arguments)
    if parsed is None:
        return arguments
    lines = []
    for key, value in parsed.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{key}: {text}")
    return "\n".join(lines)


#: Actors whose own chatter (retries, notes, errors, turn ends, approvals)
#: the transcript shows; a plan's or team's sub-agents show theirs in the
#: run screen's panes, and the transcript only gets their run's facts.
_NARRATED = frozenset({"react", "session", "engine", "planner"})


@cache
def _chatter() -> tuple[type[ev.Event], ...]:
    # Looked up on first use: the first screen imports this module before any
    # event exists, and naming the classes here would build them all.
    return (ev.ModelError, ev.ModelRetry, ev.ModelQueued, ev.AgentNote, ev.ApprovalDecided, ev.GrantAdded,
            ev.Compaction, ev.AgentFinished)


_REPAIRED_BY = {"plan": "planner", "report": "worker", "verdict": "reviewer"}
_FALLBACK_WORDS = {
    "json_object_schema": "the schema as json_object + schema",
    "json_object": "plain JSON mode (json_object)",
    "max_completion_tokens": "the limit as max_completion_tokens",
}


def _actor(event: ev.Event) -> str:
    return "" if event.actor in ("react", "session", "engine") else f"[{event.actor}] "


_APPROVAL_WORDS = {
    "yes": ("✓ you approved {tool}", "success"),
    "always": ("✓ you approved {tool}", "success"),
    "auto-approved": ("✓ {tool} allowed", "success"),
    "no": ("✗ you declined {tool}", "warning"),
    "auto-denied": ("✗ {tool} refused", "warning"),
    "edit": ("✎ you edited {tool} before it ran", "success"),
}


def _approval_line(who: str, event: ev.ApprovalDecided) -> Line:
    template, kind = _APPROVAL_WORDS.get(event.decision, ("{tool}: " + event.decision, "warning"))
    # A yes needs no reason repeated; anything else says why.
    reason = f": {event.reason}" if event.reason and event.decision not in ("yes", "always", "edit") else ""
    return Line(f"{who}{template.format(tool=event.tool)}{reason}", kind)


#: Narrow (one cell), so chips line up; the paperclip emoji is two cells wide.
ATTACHMENT_GLYPH = "⎘"


def attachment_chips(records) -> str:
    """``⎘ src/app.py (120 lines) · ⎘ logo.png (binary file, not attached)``."""
    from paicli_tui.session.attachments import Attachment

    chips = []
    for record in records:
        item = Attachment(str(record.get("path", "?")), lines=int(record.get("lines") or 0),
                          truncated=bool(record.get("truncated")), note=str(record.get("note") or ""))
        chips.append(f"{ATTACHMENT_GLYPH} {item.chip()}")
    return " · ".join(chips)


#: A first token this late is worth a line: where a local model's time goes.
SLOW_FIRST_TOKEN_S = 2.0


def speed_words(ttft_s: float, tokens_per_s: float | None) -> str:
    speed = f" · {tokens_per_s:.0f} tok/s" if tokens_per_s else ""
    return f"⏱ first token {ttft_s:.1f} s{speed}"


def queued_words(slots: int) -> str:
    """What a call queued for a model-server slot shows."""
    return f"waiting for the model server ({slots} slot{'' if slots == 1 else 's'}, one request each)"


def describe(event: ev.Event) -> Line | None:
    """A transcript line for events that are not streamed text or tool calls;
    None for events the transcript does not show as a line (one line per
    dispatch, status change or verdict of a run at most)."""
    if isinstance(event, _chatter()) and event.actor not in _NARRATED:
        return None
    who = _actor(event)
    match event:
        case ev.ModelError():
            return Line(f"{who}✗ model call failed ({event.kind}): {event.message}", "error")
        case ev.ModelRetry():
            return Line(f"{who}↻ retry {event.attempt} in {event.delay_s:.1f}s: {event.reason}", "warning")
        case ev.ModelQueued():
            return Line(f"{who}⧗ {queued_words(event.slots)}", "muted")
        case ev.AgentNote():
            return Line(f"{who}{event.text}", "muted")
        case ev.ApprovalDecided():
            return _approval_line(who, event)
        case ev.GrantAdded():
            return Line(f"{who}✓ granted for this session: {event.description} (/permissions lists and revokes)",
                        "success")
        case ev.GrantRevoked():
            return Line(f"revoked: {event.rule}", "muted")
        case ev.GrantKept():
            return Line(f"kept for this workspace: {event.rule}", "muted")
        case ev.Compaction():
            return Line(f"{who}history compacted: {event.messages_before} → {event.messages_after} messages", "muted")
        case ev.AgentFinished() if event.status == "cancelled":
            # The person asked for it: one quiet line, not a failure.
            return Line(f"{who}cancelled", "muted")
        case ev.AgentFinished() if event.status != "final":
            kind = "warning" if event.status == "partial" else "error"
            reason = f": {event.reason}" if event.reason else ""
            return Line(f"{who}turn {event.status}{reason}", kind)
        case ev.RunRequested() if event.attachments:
            return Line(attachment_chips(event.attachments), "muted")
        case ev.PlanProposed():
            count = len(event.plan.get("tasks", ())) if isinstance(event.plan, dict) else 0
            return Line(f"{who}plan v{event.version} ({event.origin}): {count} tasks", "info")
        case ev.PlanRejected():
            return Line(f"{who}plan rejected ({event.origin}): {event.error}", "error")
        case ev.RepairRequested():
            author = _REPAIRED_BY.get(event.kind, "agent")
            return Line(f"{who}{event.kind} rejected: {event.error}; asking the {author} to correct it", "warning")
        case ev.CapabilityDropped():
            then = f"sending {_FALLBACK_WORDS.get(event.fallback, event.fallback)} instead from now on" if event.fallback \
                else "not sent again this session"
            return Line(f"{who}the server refused {event.field}; {then}: {event.reason}", "warning")
        case ev.TaskDispatched():
            retry = f" (attempt {event.attempt})" if event.attempt > 1 else ""
            return Line(f"▸ {event.task_id} → {event.worker}{retry}", "muted")
        case ev.TaskPlaced():
            return Line(f"  {event.task_id} runs on {event.executor} node {event.node_id[:12]} ({event.address})", "muted")
        case ev.TaskStatusChanged() if event.status != "RUNNING":  # the dispatch line said so
            kind = {"COMPLETED": "success", "FAILED": "error", "SKIPPED": "warning", "CONFLICT": "warning"}.get(event.status, "muted")
            word = outcome_of(event.status, event.error)
            detail = f": {event.error}" if event.error and event.error != word else ""
            return Line(f"{event.task_id} {word}{detail}", kind)
        case ev.ReplanTriggered():
            return Line(f"replanning after {event.failed_task} failed: {event.reason}", "warning")
        case ev.RunOutcomeRecorded() if event.status == "PARTIAL":
            return Line(" · ".join(event.text.splitlines()[:2]), "warning")
        case ev.RunFinished():
            kind = "success" if event.status == "COMPLETED" else "warning"
            summary = event.summary
            for said in (f"Plan {event.status}: ", f"Team run {event.status}: "):
                summary = summary.removeprefix(said)  # "run COMPLETED: Plan COMPLETED: …" says it twice
            return Line(f"run {event.status}: {summary}", kind)
        case ev.ReviewVerdictGiven():
            verdict = "approved" if event.approved else f"rejected: {items_on_one_line(event.feedback)}"
            if event.approved and event.notes:
                verdict += " (notes: " + "; ".join(event.notes) + ")"
            return Line(f"{who}{event.step_id} {verdict}", "success" if event.approved else "warning")
        case ev.StepRetry():
            return Line(f"{event.step_id} retry {event.attempt}: {items_on_one_line(event.feedback)}", "warning")
        case ev.RunChangesRecorded():
            return changes_line(event)
        case ev.ChangesReverted():
            return _reverted_line(event)
        case ev.McpServerChanged() | ev.McpResourceAttached() | ev.McpWorkspaceTrusted():
            return _mcp_line(event)
        case ev.HookRan() if event.outcome != "ok":
            kind = "warning" if event.outcome == "blocked" else "error"
            detail = f": {event.reason}" if event.reason else ""
            return Line(f"{who}hook {event.hook_event} {event.outcome} ({event.command}){detail}", kind)
        case ev.CheckRan():
            ended = event.stopped or f"exit {event.exit_code}"
            mark, kind = ("✓ check passed", "success") if event.passed else ("✗ check failed", "warning")
            return Line(f"{event.task_id} {mark} ({ended}, {event.duration_s:.1f}s): {event.command}", kind)
        case ev.ReceiptsSent() if event.flags:
            return Line(f"{event.task_id} " + " · ".join(f"⚠ {flag}" for flag in event.flags), "warning")
        case ev.HooksTrusted():
            kept = "" if event.remembered else " (this session only)"
            return Line(f"running the hooks of {event.path}{kept}", "info")
        case ev.MemorySaved() if event.source == "agent":  # the person's /save says so itself
            return Line(f"{who}kept in memory as fact {event.fact_id}: {event.text} (/memory lists and deletes)",
                        "muted")
        case ev.MemoryHeld():
            return Line(f"{who}fact {event.fact_id} waits for your yes before it is kept in memory: {event.text} "
                        f"(/memory: k keeps, d drops; or paicli memory keep|delete {event.fact_id})", "warning")
        case ev.MemoryDiscarded():
            return Line(f"not kept in memory: {event.count} fact(s) saved by agents, because {event.reason}", "muted")
    return None


def _mcp_line(event: ev.Event) -> Line | None:
    """One line when an MCP server becomes ready, fails or dies, or a
    resource is attached; starting and a clean stop say nothing."""
    if isinstance(event, ev.McpServerChanged):
        if event.state == "ready":
            return Line(f"MCP {event.server} ready: {event.detail}", "muted")
        if event.state in ("failed", "exited"):
            verb = "did not start" if event.state == "failed" else "stopped working"
            return Line(f"MCP server {event.server} {verb}: {event.detail} (/mcp shows it, r restarts it)", "warning")
        return None
    if isinstance(event, ev.McpResourceAttached):
        if not event.ok:
            return Line(f"@{event.server}:{event.uri} not attached: {event.detail}", "warning")
        cut = " (cut)" if event.truncated else ""
        return Line(f"attached @{event.server}:{event.uri} ({event.chars} characters{cut})", "muted")
    if isinstance(event, ev.McpWorkspaceTrusted):
        kept = "" if event.remembered else " (this run only)"
        return Line(f"starting the MCP servers of {event.path}: {', '.join(event.servers)}{kept}", "info")
    return None


def _names(paths: tuple[str, ...], shown: int = 3) -> str:
    more = f" and {len(paths) - shown} more" if len(paths) > shown else ""
    return ", ".join(paths[:shown]) + more


def changes_line(event: ev.RunChangesRecorded, undo: str = "/undo") -> Line:
    """After a run: what ``undo`` can take back, and what it cannot (P-9.3)."""
    parts = []
    if event.files:
        count = len(event.files)
        parts.append(f"{count} file{'s' if count != 1 else ''} changed ({_names(event.files)}) · {undo} reverts")
    if event.unstored:
        parts.append(f"too large to keep for undo: {_names(event.unstored)}")
    if event.commands:
        parts.append(f"commands ran ({', '.join(event.commands)}): what they changed is not tracked by {undo}")
    return Line(" · ".join(parts), "muted")


def _reverted_line(event: ev.ChangesReverted) -> Line:
    restored = event.restored + event.overwritten
    parts = [f"↶ undo: restored {_names(restored)}" if restored else "↶ undo: nothing restored"]
    if event.overwritten:
        parts.append(f"overwrote what was changed since in {_names(event.overwritten)}")
    if event.skipped:
        parts.append(f"kept {_names(event.skipped)} (changed since)")
    if event.failed:
        parts.append(f"could not restore {_names(event.failed)}")
    return Line("; ".join(parts), "warning" if event.skipped or event.failed else "success")
