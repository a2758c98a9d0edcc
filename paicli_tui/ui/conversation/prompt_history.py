"""What the person typed, kept per workspace so Up brings it back after a
restart. Plain Python (no Textual): the prompt editor drives it.

One JSON-lines file per workspace under ``data_dir()/input-history/``
(``history/`` holds the ledgers), named by a
hash of the workspace's resolved path (the path itself is not a file name
anyone wants to read, and may be long). Each line is ``{"text": ..., "at":
unix seconds}``, plus ``"pastes": [[token, text], …]`` when the input held
collapsed pastes, so a recalled input looks as it did (``[pasted 120
lines]``) and still sends whole. The file is 0600 in a 0700 directory: prompts can hold
things the person would not show others.

Nothing here ever raises at the editor: a file that cannot be read is moved
aside (``.corrupt``) and the history starts empty with one warning; a file
that cannot be written keeps the history in memory with one warning. A torn
last line (a crash mid-write) is skipped quietly: the lines before it are
intact.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

#: Entries kept; the file is rewritten down to this many when it has grown
#: past it by half.
MAX_ENTRIES = 500
#: Longer inputs (a huge paste) stay in this session's history but are not
#: written to disk.
MAX_SAVED_CHARS = 64_000


@dataclass(frozen=True)
class Entry:
    """One input as it was in the editor: ``text`` with its paste tokens,
    and what each token stands for."""

    text: str
    pastes: tuple[tuple[str, str], ...] = ()

    @property
    def size(self) -> int:
        return len(self.text) + sum(len(block) for _, block in self.pastes)


def history_path(workspace: Path, data_dir: Path | None = None) -> Path:
    """Where ``workspace``'s history lives."""
    if data_dir is None:
        from paicli_tui.config.paths import data_dir as default_data_dir

        data_dir = default_data_dir()
    key = hashlib.sha256(str(Path(workspace).resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return data_dir / "input-history" / f"{key}.jsonl"


class PromptHistory:
    """Past inputs, oldest first, and a cursor for walking them with Up/Down.

    ``back(current)`` and ``forward()`` return the entry to show, or None
    when there is nowhere to go; the entry being written when the walk
    started comes back at the end of ``forward``.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.entries: list[Entry] = []
        #: One line for the person when the file could not be used, else "".
        self.warning = ""
        self._on_disk = 0  # lines in the file, to know when to compact it
        self._position = 0  # == len(entries) when not walking
        self._draft = Entry("")
        self._writable = path is not None
        if path is not None:
            self._load(path)
        self._position = len(self.entries)

    @classmethod
    def for_workspace(cls, workspace: Path) -> "PromptHistory":
        try:
            path = history_path(workspace)
        except OSError as exc:  # the workspace cannot be resolved: keep it in memory
            history = cls(None)
            history.warning = f"input history is not kept: {exc}"
            return history
        return cls(path)

    # -- walking -----------------------------------------------------------------

    @property
    def walking(self) -> bool:
        return self._position < len(self.entries)

    def back(self, current: Entry) -> Entry | None:
        if self._position == 0:
            return None
        if not self.walking:
            self._draft = current
        self._position -= 1
        return self.entries[self._position]

    def forward(self) -> Entry | None:
        if not self.walking:
            return None
        self._position += 1
        return self.entries[self._position] if self.walking else self._draft

    def stop_walking(self) -> None:
        self._position = len(self.entries)
        self._draft = Entry("")

    # -- adding ------------------------------------------------------------------

    def add(self, text: str, pastes: tuple[tuple[str, str], ...] = ()) -> None:
        """Remember a submitted input (not a repeat of the last one)."""
        self.stop_walking()
        entry = Entry(text.strip(), tuple((token, block) for token, block in pastes if token in text))
        if not entry.text or (self.entries and self.entries[-1] == entry):
            return
        self.entries.append(entry)
        del self.entries[:-MAX_ENTRIES]
        self._position = len(self.entries)
        if self._writable and entry.size <= MAX_SAVED_CHARS:
            self._append(entry)

    # -- the file ----------------------------------------------------------------

    def _load(self, path: Path) -> None:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            self.warning = f"input history {path} cannot be read ({exc.strerror or exc}); starting empty"
            self._writable = False
            return
        lines = data.split(b"\n")
        torn = lines.pop() if lines else b""  # after the last newline: b"" or a torn write
        entries: list[Entry] = []
        for number, raw in enumerate(lines, 1):
            entry = _entry(raw)
            if entry is None:
                self._set_aside(path, f"line {number} is not a history entry")
                return
            if entry.text:
                entries.append(entry)
        last = _entry(torn) if torn else None
        if last is not None and last.text:
            entries.append(last)
        self.entries = entries[-MAX_ENTRIES:]
        self._on_disk = len(lines)

    def _set_aside(self, path: Path, why: str) -> None:
        aside = path.with_name(path.name + ".corrupt")
        try:
            os.replace(path, aside)
            kept = f"; the file was moved to {aside}"
        except OSError:
            kept = ""
        self.warning = f"input history {path} is unreadable ({why}); starting with an empty history{kept}"
        # Moved aside: later inputs start a fresh file. Still there: leave it
        # alone rather than append to something unreadable.
        self._writable = bool(kept)

    def _append(self, entry: Entry) -> None:
        line = _line(entry, round(time.time(), 3))
        try:
            self._ensure_dir()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.fchmod(fd, 0o600)
                os.write(fd, line.encode("utf-8", "surrogateescape"))
            finally:
                os.close(fd)
            self._on_disk += 1
            if self._on_disk > MAX_ENTRIES * 3 // 2:
                self._rewrite()
        except OSError as exc:
            self._writable = False
            self.warning = (f"input history cannot be saved to {self.path} ({exc.strerror or exc}); "
                            "kept for this session only")

    def _rewrite(self) -> None:
        assert self.path is not None
        temporary = self.path.with_name(self.path.name + ".tmp")
        saved = [entry for entry in self.entries if entry.size <= MAX_SAVED_CHARS]
        body = "".join(_line(entry, 0) for entry in saved)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, body.encode("utf-8", "surrogateescape"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, self.path)
        self._on_disk = len(saved)

    def _ensure_dir(self) -> None:
        assert self.path is not None
        directory = self.path.parent
        if not directory.is_dir():
            directory.mkdir(parents=True, exist_ok=True)
            os.chmod(directory, 0o700)


def _line(entry: Entry, at: float) -> str:
    record: dict = {"text": entry.text, "at": at}
    if entry.pastes:
        record["pastes"] = [list(pair) for pair in entry.pastes]
    return json.dumps(record, ensure_ascii=False) + "\n"


def _entry(raw: bytes) -> Entry | None:
    """One history line as an entry; an empty entry for a blank line, None
    when the line is not an entry."""
    if not raw.strip():
        return Entry("")
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("text"), str):
        return None
    pastes = value.get("pastes", [])
    if not isinstance(pastes, list) or not all(_is_pair(pair) for pair in pastes):
        return None
    return Entry(value["text"], tuple((token, block) for token, block in pastes))


def _is_pair(value: object) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(part, str) for part in value)
