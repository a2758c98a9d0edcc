"""SESSION arguments and the list of past runs (`paicli sessions`).

A SESSION is a session id (a ledger's file name without ``.jsonl`` under
``<data dir>/history/raw``) or a path to a ledger file.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path

from paicli_tui.records.ledger import ledger_dir, read_ledger


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


#: One outcome vocabulary for every kind of run: a ReAct run's ``final``
#: and a plan's ``COMPLETED`` are both ``completed``.
OUTCOME_WORDS = {"final": "completed", "completed": "completed", "partial": "partial", "failed": "failed",
                 "cancelled": "cancelled", "blocked": "failed"}


def outcome_word(status: str) -> str:
    return OUTCOME_WORDS.get(status.strip().lower(), status.strip().lower() or "unfinished")


def _clock(epoch: float, fmt: str = "%Y-%m-%d %H:%M") -> str:
    return time.strftime(fmt, time.localtime(epoch))


@dataclass
class RunSummary:
    """One run of a session: what was asked, how it ended, what it cost."""

    index: int
    started: float
    kind: str
    goal: str
    outcome: str = "unfinished"
    tokens: int = 0
    #: An interrupted /plan or /team run `paicli resume` can go on with.
    resumable: bool = False
    #: Model calls, those whose tokens paicli counted (≈: the server sent no
    #: usage) and those nobody counted.
    calls: int = 0
    estimated_calls: int = 0
    uncounted_calls: int = 0

    @property
    def when(self) -> str:
        return _clock(self.started)

    def to_dict(self) -> dict:
        return {**asdict(self), "time": self.when}

    def count(self, payload: dict) -> None:
        self.tokens += int(payload.get("prompt_tokens") or 0) + int(payload.get("completion_tokens") or 0)
        self.calls += 1
        self.estimated_calls += bool(payload.get("usage_estimated"))
        self.uncounted_calls += payload.get("usage_reported") is False and not payload.get("usage_estimated")


@dataclass(frozen=True)
class SessionSummary:
    session: str
    path: str
    started: float  # epoch seconds of the first line (file mtime if none)
    mode: str  # the first run's kind
    goal: str  # the first run's goal
    outcome: str  # the last run's outcome
    tokens: int
    runs: tuple[RunSummary, ...] = ()
    calls: int = 0
    estimated_calls: int = 0
    uncounted_calls: int = 0

    @property
    def when(self) -> str:
        return _clock(self.started)

    def to_dict(self) -> dict:
        data = {k: v for k, v in asdict(self).items() if k != "runs"}
        return {**data, "time": self.when, "run_count": len(self.runs), "runs": [run.to_dict() for run in self.runs]}


def summarize_session(path: Path) -> SessionSummary:
    """One pass over a ledger: each run's goal, kind, outcome and tokens."""
    started: float | None = None
    runs: list[RunSummary] = []
    whole = RunSummary(0, 0.0, "", "")  # every call of the session, in or out of a run
    legacy_goal = legacy_mode = legacy_outcome = ""
    for line in read_ledger(path):
        data = line.data
        ts = data.get("ts") if isinstance(data.get("ts"), (int, float)) else None
        if started is None and ts is not None:
            started = float(ts)
        payload = line.payload if isinstance(line.payload, dict) else {}
        current = runs[-1] if runs else None
        if line.event == "run_requested":
            runs.append(RunSummary(len(runs) + 1, float(ts or started or 0.0), str(payload.get("kind", "")),
                                   str(payload.get("goal", ""))))
        elif line.event == "plan_version" and not legacy_goal:
            legacy_goal = str(payload.get("goal", ""))
        elif line.event == "model_response":
            whole.count(payload)
            if current is not None:
                current.count(payload)
        elif line.event == "run_outcome":
            if current is not None:
                current.outcome = outcome_word(str(payload.get("status", "")))
            legacy_outcome = str(payload.get("status", ""))
        elif line.event == "run_finished" and not legacy_outcome:
            legacy_outcome = str(payload.get("status", ""))
        if not legacy_mode and line.event not in ("session_started", "mode_changed") and data.get("mode"):
            legacy_mode = str(data["mode"])
    if started is None:
        started = path.stat().st_mtime
    tokens = whole.tokens
    figures = {"calls": whole.calls, "estimated_calls": whole.estimated_calls, "uncounted_calls": whole.uncounted_calls}
    if runs:
        first, last = runs[0], runs[-1]
        last.resumable = _resumable(path, last)
        return SessionSummary(path.stem, str(path), started, first.kind or "?", first.goal, last.outcome, tokens,
                              tuple(runs), **figures)
    outcome = outcome_word(legacy_outcome) if legacy_outcome else "unfinished"
    if legacy_goal or legacy_outcome:
        # Written before run_requested existed: one run, read from the rest.
        only = RunSummary(1, started, legacy_mode or "?", legacy_goal, outcome, tokens, **figures)
        return SessionSummary(path.stem, str(path), started, only.kind, only.goal, outcome, tokens, (only,), **figures)
    # A launch of the app that never ran anything.
    return SessionSummary(path.stem, str(path), started, legacy_mode or "?", "", outcome, tokens, **figures)


def _resumable(path: Path, last: RunSummary) -> bool:
    """Read again only for a plan or team run that did not complete."""
    if last.kind not in ("plan", "team") or last.outcome == "completed":
        return False
    from paicli_tui.records.killed import held_by_a_process
    from paicli_tui.records.resume_state import resume_state_of

    if held_by_a_process(path):
        return False
    state = resume_state_of(path)
    return state is not None and state.resumable


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
