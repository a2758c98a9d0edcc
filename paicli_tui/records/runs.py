"""A ledger cut into runs. One session (one ledger) may hold several runs
(the full-screen app runs one per input); each starts at a `run_requested`
line. Task ids restart in every run, so rules and reports work per run."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from paicli_tui.records.ledger import LedgerLine, read_ledger


@dataclass
class RunLines:
    index: int  # 1-based run number in the session
    lines: list[LedgerLine] = field(default_factory=list)

    @property
    def requested(self) -> dict:
        first = self.lines[0] if self.lines else None
        return first.payload if first is not None and first.event == "run_requested" else {}

    @property
    def kind(self) -> str:
        kind = self.requested.get("kind")
        if kind:
            return str(kind)
        modes = [line.data.get("mode") for line in self.lines if line.event not in ("session_started", "mode_changed")]
        return str(next((m for m in reversed(modes) if m), "react"))


def split_runs(lines: list[LedgerLine]) -> tuple[list[LedgerLine], list[RunLines]]:
    """(lines before the first run, the runs). A ledger written before
    `run_requested` existed is one run."""
    if not any(line.event == "run_requested" for line in lines):
        body = [line for line in lines if line.event != "session_started"]
        head = [line for line in lines if line.event == "session_started"]
        return head, [RunLines(1, body)] if body else []
    head: list[LedgerLine] = []
    runs: list[RunLines] = []
    for line in lines:
        if line.event == "run_requested":
            runs.append(RunLines(len(runs) + 1))
        if runs:
            runs[-1].lines.append(line)
        else:
            head.append(line)
    return head, runs


def load(path: Path, warnings: list[str] | None = None) -> list[LedgerLine]:
    return list(read_ledger(path, warnings))
