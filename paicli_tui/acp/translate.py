"""Engine events as ACP ``session/update`` payloads. One translator per
session keeps what an update needs from earlier events: the plan's entries
(the client replaces the whole plan on each update), and each edit's old
text for its diff. Not thread-safe on its own: the pump calls it under a lock."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp import (plan_entry, start_tool_call, text_block, tool_content, tool_diff_content, update_agent_message_text,
                 update_agent_thought_text, update_plan, update_tool_call)
from acp.schema import CurrentModeUpdate, ToolCallLocation

from paicli_tui import events as ev
from paicli_tui.plan.parser import PlanError, plan_from_dict
from paicli_tui.plan.scheduler import remaining_chain

TOOL_KINDS = {
    "read_file": "read", "load_skill": "read", "list_dir": "search", "glob_files": "search", "grep_code": "search",
    "search_code": "search", "code_graph": "search", "search_memory": "search", "write_file": "edit",
    "edit_file": "edit", "revert_turn": "edit", "execute_command": "execute", "web_fetch": "fetch",
    "web_search": "fetch",
}
EDIT_TOOLS = frozenset({"write_file", "edit_file"})
#: Characters of a tool's output shown in its update.
MAX_OUTPUT_CHARS = 8_000
#: Files larger than this get no diff (the editor would choke on it).
MAX_DIFF_BYTES = 256 * 1024
#: ACP has no failed plan status: the entry says so in its text.
PLAN_STATUS = {"PENDING": "pending", "RUNNING": "in_progress", "COMPLETED": "completed"}
PLAN_MARK = {"FAILED": "✗ failed", "SKIPPED": "– skipped", "BLOCKED": "blocked", "CANCELLED": "cancelled"}
#: Actors whose streamed text is machinery (plans, verdicts, reports), not an answer.
QUIET_CONTENT = ("planner", "reviewer", "worker", "risk")


def tool_kind(tool: str) -> str:
    return TOOL_KINDS.get(tool, "other")


def call_key(actor: str, call_id: str) -> str:
    """Parallel workers reuse model call ids (``call_0``): the actor makes them unique."""
    return f"{actor}:{call_id}"


def arguments(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw) if raw else {}
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def tool_title(tool: str, args: dict[str, Any]) -> str:
    detail = args.get("command") or args.get("path") or args.get("pattern") or args.get("query") or args.get("url")
    return f"{tool}: {detail}" if isinstance(detail, str) and detail else tool


def locations(workspace: Path, args: dict[str, Any]) -> list[ToolCallLocation]:
    path = args.get("path")
    if not isinstance(path, str) or not path:
        return []
    return [ToolCallLocation(path=str((workspace / path).resolve()))]


class UpdateTranslator:
    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace.resolve()
        self._entries: dict[str, dict[str, str]] = {}  # task id → description, status, mark, attempt
        self._priorities: dict[str, str] = {}
        self._old_text: dict[str, tuple[Path, str | None]] = {}

    def updates(self, event: ev.Event) -> list[Any]:
        match event:
            case ev.ModelDelta(kind="content") if event.actor == "react":
                return [update_agent_message_text(event.text)]
            case ev.ModelDelta(kind="reasoning") if event.actor == "react":
                return [update_agent_thought_text(event.text)]
            case ev.ToolCallStarted():
                return [self._started(event)]
            case ev.ToolCallFinished():
                return [self._finished(event)]
            case ev.PlanProposed() | ev.RunStarted():
                self._set_plan(event.plan)
                return [self._plan()]
            case ev.TaskStatusChanged() if event.task_id in self._entries:
                entry = self._entries[event.task_id]
                entry["status"] = PLAN_STATUS.get(event.status, "completed")
                mark = PLAN_MARK.get(event.status, "")
                entry["mark"] = f"{mark}: {event.error}" if mark and event.error else mark
                return [self._plan()]
            case ev.StepRetry() if event.step_id in self._entries:
                self._entries[event.step_id]["attempt"] = str(event.attempt)
                return [self._plan()]
            case ev.ModeChanged():
                return [CurrentModeUpdate(session_update="current_mode_update", current_mode_id=event.mode)]
            case ev.HookRan() if event.outcome != "ok":
                return [update_agent_thought_text(f"\n[hook {event.hook_event} {event.outcome}: {event.reason}]\n")]
            case ev.AgentNote():
                return [update_agent_thought_text(f"\n[{event.actor}] {event.text}\n")]
        return []

    # -- tool calls ----------------------------------------------------------------

    def _started(self, event: ev.ToolCallStarted):
        args = arguments(event.arguments)
        key = call_key(event.actor, event.call_id)
        if event.tool in EDIT_TOOLS:
            self._old_text[key] = self._snapshot(args)
        return start_tool_call(key, tool_title(event.tool, args), kind=tool_kind(event.tool), status="in_progress",
                               locations=locations(self.workspace, args) or None, raw_input=args)

    def _finished(self, event: ev.ToolCallFinished):
        key = call_key(event.actor, event.call_id)
        content = [tool_content(text_block(event.content[:MAX_OUTPUT_CHARS]))]
        before = self._old_text.pop(key, None)
        if before is not None and event.ok:
            path, old = before
            new = _read_text(path)
            if new is not None:
                content.append(tool_diff_content(str(path), new, old))
        return update_tool_call(key, status="completed" if event.ok else "failed", content=content,
                                raw_output={"ok": event.ok, "summary": event.summary})

    def _snapshot(self, args: dict[str, Any]) -> tuple[Path, str | None] | None:
        path = args.get("path")
        if not isinstance(path, str):
            return None
        resolved = (self.workspace / path).resolve()
        try:
            resolved.relative_to(self.workspace)
        except ValueError:
            return None
        return resolved, _read_text(resolved)

    # -- plans ---------------------------------------------------------------------

    def _set_plan(self, data: dict) -> None:
        plan = _plan_of(data)
        if plan is None:
            return
        old = self._entries
        self._entries = {}
        for task in plan.tasks:
            previous = old.get(task.id, {})
            self._entries[task.id] = {"description": task.description, "status": previous.get("status", "pending"),
                                      "mark": previous.get("mark", ""), "attempt": previous.get("attempt", "1")}
        self._priorities = _priorities(plan)

    def _plan(self):
        entries = []
        for task_id, entry in self._entries.items():
            text = f"{task_id}: {entry['description']}"
            if entry["attempt"] != "1":
                text += f" (attempt {entry['attempt']})"
            if entry["mark"]:
                text = f"{entry['mark']} — {text}"
            entries.append(plan_entry(text, priority=self._priorities.get(task_id, "medium"),  # type: ignore[arg-type]
                                      status=entry["status"]))  # type: ignore[arg-type]
        return update_plan(entries)


def _priorities(plan) -> dict[str, str]:
    """high on the critical path (a longest chain of dependencies), medium
    where more work waits on a task, low for the rest."""
    after = remaining_chain(plan)
    before: dict[str, float] = {}
    for tid in plan.topological_order():
        before[tid] = 1 + max((before[dep] for dep in plan.task(tid).dependencies), default=0.0)
    longest = max(after.values(), default=0.0)
    return {tid: "high" if before[tid] + after[tid] - 1 == longest else "medium" if after[tid] > 1 else "low"
            for tid in after}


def _plan_of(data: dict):
    """The plan an event carries, ids as written; None when it cannot be read."""
    if not isinstance(data, dict):
        return None
    prefix = "step" if "steps" in data else "task"
    try:
        return plan_from_dict(data, prefix, renumber=False)
    except PlanError:
        return None


def _read_text(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_DIFF_BYTES:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
