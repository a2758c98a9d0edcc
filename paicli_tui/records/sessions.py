"""SESSION arguments and the list of past runs (`paicli sessions`).

A SESSION is a session id (a ledger's file name without ``.jsonl`` under
``<data dir>/history/raw``) or a path to a ledger file.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path

from paicli_tui.ledger import ledger_dir, read_ledger


class SessionNotFound(Exception):
    """``str()`` is one line naming what was looked for and where."""


def resolve_session(spec: str) -> Path:
    spec = spec.strip()
    if not spec:
        raise SessionNotFound("no session given (a session id from `paicli sessions` or a ledger path)")
    candidate = Path(spec).expanduser()
    if candidate.is_file():
        return candidate
    if candidate.suffix == ".jsonl" or "/" in spec or candidate.is_dir():
        raise SessionNotFound(f"no ledger file at {candidate}")
    by_id = ledger_dir() / f"{spec}.jsonl"
    if by_id.is_file():
        return by_id
    raise SessionNotFound(f"no session {spec!r} in {ledger_dir()} (see `paicli sessions`)")


@dataclass(frozen=True)
class SessionSummary:
    session: str
    path: str
    started: float  # epoch seconds of the first line (file mtime if none)
    mode: str
    goal: str
    outcome: str
    tokens: int
    runs: int

    @property
    def when(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.started))

    def to_dict(self) -> dict:
        return {**asdict(self), "time": self.when}


def summarize_session(path: Path) -> SessionSummary:
    """One pass over a ledger: the first run's goal and mode, the last run's
    outcome, tokens over every call."""
    started: float | None = None
    mode = goal = outcome = ""
    tokens = runs = 0
    for line in read_ledger(path):
        data = line.data
        if started is None and isinstance(data.get("ts"), (int, float)):
            started = float(data["ts"])
        payload = line.payload if isinstance(line.payload, dict) else {}
        if line.event == "run_requested":
            runs += 1
            if not goal:
                goal, mode = str(payload.get("goal", "")), str(payload.get("kind", ""))
        elif line.event == "plan_version" and not goal:
            goal = str(payload.get("goal", ""))
        elif line.event == "model_response":
            tokens += int(payload.get("prompt_tokens") or 0) + int(payload.get("completion_tokens") or 0)
        elif line.event == "run_outcome":
            outcome = str(payload.get("status", ""))
        elif line.event == "run_finished" and not outcome:
            outcome = str(payload.get("status", ""))
        if not mode and line.event not in ("session_started", "mode_changed") and data.get("mode"):
            mode = str(data["mode"])
    if started is None:
        started = path.stat().st_mtime
    return SessionSummary(path.stem, str(path), started, mode or "?", goal, outcome or "unfinished", tokens, runs)


def list_sessions(directory: Path | None = None) -> list[SessionSummary]:
    """Every ledger in ``directory`` (default: the data dir's), newest first."""
    folder = directory or ledger_dir()
    if not folder.is_dir():
        return []
    summaries = []
    for path in folder.glob("*.jsonl"):
        try:
            summaries.append(summarize_session(path))
        except OSError:
            continue  # vanished or unreadable: not a past run we can show
    return sorted(summaries, key=lambda s: (s.started, s.session), reverse=True)
