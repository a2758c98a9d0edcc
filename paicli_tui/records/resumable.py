"""Which past runs of a workspace can be resumed, newest first."""

from __future__ import annotations

import json
from pathlib import Path

from paicli_tui.records.ledger import ledger_dir
from paicli_tui.records.resume_state import ResumeState, resume_state_of


def _workspace_of(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            first = json.loads(handle.readline() or b"{}")
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return ""
    payload = first.get("payload") if isinstance(first, dict) else None
    return str(payload.get("workspace") or "") if isinstance(payload, dict) else ""


def resumable_runs(workspace: Path, directory: Path | None = None, *, own: str = "") -> list[ResumeState]:
    """This workspace's interrupted /plan and /team runs, newest stop first.
    A ledger another process holds is live, not interrupted; ``own`` is the
    asking session's id, whose ledger it holds itself (a run it cancelled
    may go on)."""
    from paicli_tui.records.killed import held_by_a_process

    folder = directory or ledger_dir()
    if not folder.is_dir():
        return []
    where = str(workspace.resolve())
    found = []
    for path in folder.glob("*.jsonl"):
        if _workspace_of(path) != where or (path.stem != own and held_by_a_process(path)):
            continue
        state = resume_state_of(path)
        if state is not None and state.resumable:
            found.append(state)
    return sorted(found, key=lambda s: (s.stopped_at, s.session), reverse=True)


def newest_resumable(workspace: Path, directory: Path | None = None, *, own: str = "") -> ResumeState | None:
    runs = resumable_runs(workspace, directory, own=own)
    return runs[0] if runs else None
