"""Append-only JSONL run record (P-8.1).

One line per event: ``{"v", "session", "seq", "ts", "mode", "actor", "event",
"payload"}``. Each line is written with one ``write`` call, flushed and
fsynced, so a crash loses at most the line being written; readers skip a torn
last line with a warning. Streaming deltas are not written one by one (the
`model_response` line carries the full text).
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from paicli_tui.config.paths import data_dir
from paicli_tui.events import Event, EventBus, ModelDelta
from paicli_tui.records.ledger_schema import BadLine, checked_line
from paicli_tui.policy.redaction import MIN_KEY_CHARS, Redactor

SCHEMA_VERSION = 1
SKIPPED_EVENTS = frozenset({ModelDelta.name})
TORN = "unreadable line skipped (torn write?)"


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]


def ledger_dir() -> Path:
    return data_dir() / "history" / "raw"


def ledger_path(session_id: str) -> Path:
    return ledger_dir() / f"{session_id}.jsonl"


class Ledger:
    """Subscribes to a bus and appends one JSON line per event."""

    def __init__(self, bus: EventBus, path: Path | None = None, *, redact: Iterable[str] = (),
                 session: str | None = None) -> None:
        """``session``: the id the lines carry when it is not the bus's (a
        session going on with another session's run writes to that ledger)."""
        self.bus = bus
        self.session = session or bus.session_id
        #: While True nothing is written (the events go to another ledger meanwhile).
        self.paused = False
        self.path = path or ledger_path(self.session)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(self.path.parent, 0o700)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        os.chmod(self.path, 0o600)
        try:
            # Held while this process writes: a later start knows the run is alive (records/killed.py).
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            pass
        self._lock = threading.Lock()
        self._seq = _last_seq(self.path)  # a resumed session continues its own ledger
        # Secret values (API keys) that must never be written, even if some
        # message or error text carried one by accident. Short keys too: a
        # 5-character key is still the key (issue 12). The session's bus
        # redacts events already; this is the last check on the line itself.
        self._redactor = Redactor(s for s in redact if s and len(s) >= MIN_KEY_CHARS)
        self._unsubscribe = bus.subscribe(self.record)

    def record(self, event: Event) -> None:
        if event.name in SKIPPED_EVENTS or self.paused:
            return
        with self._lock:
            if self._fd < 0:
                return
            self._seq += 1
            line = {
                "v": SCHEMA_VERSION,
                "session": self.session,
                "seq": self._seq,
                "ts": round(event.ts if event.ts is not None else time.time(), 6),
                "mode": self.bus.mode,
                "actor": event.actor,
                "event": event.name,
                "payload": event.payload(),
            }
            text = json.dumps(line, ensure_ascii=False, default=_jsonable)
            text = self._redactor.text(text)
            os.write(self._fd, (text + "\n").encode("utf-8"))
            os.fsync(self._fd)

    def close(self) -> None:
        self._unsubscribe()
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1


def _last_seq(path: Path) -> int:
    """The ``seq`` of the file's last readable line; 0 for a new file."""
    if path.stat().st_size == 0:
        return 0
    last = 0
    for line in read_ledger(path):
        seq = line.data.get("seq")
        if isinstance(seq, int):
            last = max(last, seq)
    return last


def _jsonable(value: Any) -> Any:
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "model_dump"):
        return value.model_dump()
    return str(value)


@dataclass(frozen=True)
class LedgerLine:
    number: int  # 1-based line number in the file
    data: dict

    @property
    def event(self) -> str:
        return self.data.get("event", "")

    @property
    def actor(self) -> str:
        return self.data.get("actor", "")

    @property
    def payload(self) -> dict:
        return self.data.get("payload", {})


def read_ledger(path: Path, warnings: list[str] | None = None) -> Iterator[LedgerLine]:
    """Yield well-formed lines. A torn, unparsable or malformed line (a field
    missing or of the wrong type, an unknown event) is skipped and described
    in ``warnings`` (if given) with its line number, so no reader ever sees
    one (``ledger_schema``)."""
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                data = json.loads(raw)
            except (json.JSONDecodeError, RecursionError):
                if warnings is not None:
                    warnings.append(f"{path}:{number}: {TORN}")
                continue
            try:
                yield LedgerLine(number, checked_line(data))
            except BadLine as exc:
                if warnings is not None:
                    warnings.append(f"{path}:{number}: {exc}; skipped")
