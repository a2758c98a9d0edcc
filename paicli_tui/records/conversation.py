"""A recorded ReAct conversation read back from its ledger, to go on with it
(`paicli -c`, `paicli --resume SESSION`): the messages the agent had (what
each request added; system prompts left out, the resumed agent writes its
own) and what the transcript showed, turn by turn."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from paicli_tui.records.ledger import read_ledger


@dataclass
class Conversation:
    session: str
    workspace: str = ""
    messages: list[dict] = field(default_factory=list)
    #: (``user`` | ``answer`` | ``outcome``, text) in the order the transcript showed them.
    turns: list[tuple[str, str]] = field(default_factory=list)


def read_conversation(path: Path) -> Conversation:
    found = Conversation(path.stem)
    last_answer: str | None = None
    for line in read_ledger(path):
        payload = line.payload if isinstance(line.payload, dict) else {}
        event, actor = line.event, line.actor
        if event == "session_started" and not found.workspace:
            found.workspace = str(payload.get("workspace") or "")
        elif event == "run_requested":
            kind, goal = str(payload.get("kind") or "react"), str(payload.get("goal") or "")
            found.turns.append(("user", goal if kind == "react" else f"/{kind} {goal}"))
        elif event == "history_clear" and actor == "react":
            found.messages.clear()
        elif event == "model_request" and actor == "react":
            found.messages.extend(m for m in payload.get("new_messages") or () if m.get("role") != "system")
            last_answer = None
        elif event == "model_response" and actor == "react" and not payload.get("tool_calls"):
            last_answer = str(payload.get("content") or "")
            found.turns.append(("answer", last_answer))
        elif event == "run_outcome" and payload.get("kind") in ("plan", "team"):
            found.turns.append(("outcome", str(payload.get("text") or "")))
    if last_answer:  # the last answer is only in the next request's new messages, and there was none
        found.messages.append({"role": "assistant", "content": last_answer})
    return found


def last_session_of(workspace: Path, directory: Path | None = None) -> Path | None:
    """The newest ledger of ``workspace`` that ran something."""
    from paicli_tui.records.sessions import list_sessions

    where = str(workspace.resolve())
    for summary in list_sessions(directory):
        if summary.runs and _workspace(Path(summary.path)) == where:
            return Path(summary.path)
    return None


def _workspace(path: Path) -> str:
    for line in read_ledger(path):
        if line.event == "session_started":
            payload = line.payload if isinstance(line.payload, dict) else {}
            return str(payload.get("workspace") or "")
    return ""
