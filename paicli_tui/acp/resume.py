"""``session/load``: an earlier session read back from its ledger. The
ReAct conversation is rebuilt from what each request added (system prompts
left out: the resumed agent writes its own), and what the person saw is
replayed to the editor: their prompts, the answers, the tool calls."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import (start_tool_call, text_block, tool_content, update_agent_message_text, update_tool_call,
                 update_user_message_text)

from paicli_tui.acp.translate import MAX_OUTPUT_CHARS, arguments, call_key, tool_kind, tool_title
from paicli_tui.records.ledger import ledger_dir, ledger_path, read_ledger


class NotResumable(Exception):
    """One line saying why this session cannot be loaded."""


@dataclass
class Resumed:
    messages: list[dict] = field(default_factory=list)
    replay: list[Any] = field(default_factory=list)


def read_session(session_id: str, workspace: Path) -> Resumed:
    path = ledger_path(session_id)
    if path.parent.resolve() != ledger_dir().resolve() or "/" in session_id or not path.is_file():
        raise NotResumable(f"no recorded session {session_id!r}")
    resumed = Resumed()
    last_answer: str | None = None
    for line in read_ledger(path):
        payload = line.data.get("payload") or {}
        event, actor = line.event, line.actor
        if event == "session_started" and Path(payload.get("workspace", "")).resolve() != workspace.resolve():
            raise NotResumable(f"session {session_id} worked in {payload.get('workspace')}, not in {workspace}")
        if event == "run_requested":
            resumed.replay.append(update_user_message_text(str(payload.get("goal", ""))))
        elif event == "history_clear" and actor == "react":
            resumed.messages.clear()
        elif event == "model_request" and actor == "react":
            resumed.messages.extend(m for m in payload.get("new_messages", ()) if m.get("role") != "system")
            last_answer = None
        elif event == "model_response" and actor == "react" and not payload.get("tool_calls"):
            last_answer = str(payload.get("content", ""))
            resumed.replay.append(update_agent_message_text(last_answer))
        elif event == "run_outcome" and payload.get("kind") in ("plan", "team"):
            resumed.replay.append(update_agent_message_text(str(payload.get("text", ""))))
        elif event == "tool_call":
            args = arguments(str(payload.get("arguments", "")))
            resumed.replay.append(start_tool_call(call_key(actor, payload.get("call_id", "")),
                                                  tool_title(payload.get("tool", ""), args),
                                                  kind=tool_kind(payload.get("tool", "")), status="in_progress"))
        elif event == "tool_result":
            resumed.replay.append(update_tool_call(
                call_key(actor, payload.get("call_id", "")), status="completed" if payload.get("ok") else "failed",
                content=[tool_content(text_block(str(payload.get("content", ""))[:MAX_OUTPUT_CHARS]))]))
    if last_answer:  # the last answer is only in the next request's new messages, and there was none
        resumed.messages.append({"role": "assistant", "content": last_answer})
    return resumed
