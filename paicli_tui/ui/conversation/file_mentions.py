"""The files an ``@`` mention can name, ranked for what is typed. Plain
Python (no Textual): the mention picker drives it from a thread.

The list comes from ``rg --files`` through ``tools/walk.py``, the walk the
model's own ``glob_files`` uses, so a mention sees what the agent sees:
.gitignore respected, .git, virtualenvs and caches left out, symlinks not
followed. It is listed once per session and listed again in the background
when the picker opens and the list is older than ``REFRESH_AFTER_S``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

#: Seconds a listing is fresh; an older one is still shown while a new one is made.
REFRESH_AFTER_S = 20.0
#: The walk gives up after this long (a huge tree): what the picker has is kept.
LIST_DEADLINE_S = 10.0
#: Files kept from one listing.
MAX_FILES = 100_000


@dataclass(frozen=True)
class Mention:
    """An ``@word`` being typed: where it starts in the text and what follows the ``@``."""

    start: int  # offset of the "@"
    query: str


def mention_at(text: str, cursor: int) -> Mention | None:
    """The mention the cursor is at the end of, if any: an ``@`` at the start
    of the text or after whitespace, then no whitespace up to the cursor."""
    head = text[:cursor]
    at = head.rfind("@")
    if at < 0 or (at > 0 and not head[at - 1].isspace()):
        return None
    query = head[at + 1:]
    if any(char.isspace() for char in query):
        return None
    return Mention(at, query)


#: Left off the end of a mention: "see @app.py, then" names app.py.
_TRAILING = ".,;:!?)]}'\""


def mentioned_paths(text: str) -> list[str]:
    """Every ``@word`` in ``text`` (at the start or after whitespace), as a
    path, in order."""
    found = []
    for word in text.split():
        if word.startswith("@") and len(word) > 1:
            path = word[1:].rstrip(_TRAILING)
            if path:
                found.append(path)
    return found


class WorkspaceFileIndex:
    """The workspace's files, listed on demand. ``refresh()`` blocks (call it
    from a thread); ``search()`` never does and uses the last listing."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: list[str] = []
        #: One line when the last listing failed or was cut short, else "".
        self.problem = ""
        self._listed_at: float | None = None
        self._lock = threading.Lock()  # one listing at a time

    @property
    def listed(self) -> bool:
        return self._listed_at is not None

    def stale(self) -> bool:
        return self._listed_at is None or time.monotonic() - self._listed_at > REFRESH_AFTER_S

    def refresh(self) -> None:
        from paicli_tui.policy.approval import DenyApprover
        from paicli_tui.tools.base import Deadline, ToolContext, ToolError
        from paicli_tui.tools.trusted_urls import TrustedUrls
        from paicli_tui.tools.walk import workspace_files

        if not self._lock.acquire(blocking=False):
            return  # a listing is already under way
        try:
            ctx = ToolContext("mentions", threading.Event(), TrustedUrls(), DenyApprover(),
                              deadline=Deadline.after(LIST_DEADLINE_S))
            root = self.root.resolve()
            listing = workspace_files(root, root, ctx, "@ file list")
            self.files = listing.files[:MAX_FILES]
            self.problem = "" if len(listing.files) <= MAX_FILES else f"only the first {MAX_FILES:,} files are offered"
        except (ToolError, OSError) as exc:  # no rg, a deadline, an unreadable root: keep the last list
            self.problem = f"cannot list the workspace's files: {exc}"
        finally:
            self._listed_at = time.monotonic()
            self._lock.release()

    def search(self, query: str, limit: int = 50) -> list[str]:
        return rank(query, self.files, limit)


def rank(query: str, paths: list[str], limit: int = 50) -> list[str]:
    """``paths`` that hold the letters of ``query`` in order (ignoring case),
    best first: the query inside the file name, then inside the path, then
    spread over the file name, then over the path (fewest gaps first);
    shorter paths win ties. An empty query
    gives the shallowest paths."""
    if not query:
        return sorted(paths, key=lambda path: (path.count("/"), path))[:limit]
    needle = query.lower()
    scored: list[tuple[int, int, str]] = []
    for path in paths:
        score = _score(needle, path)
        if score is not None:
            scored.append((score, len(path), path))
    scored.sort()
    return [path for _, _, path in scored[:limit]]


def _score(needle: str, path: str) -> int | None:
    lowered = path.lower()
    name = PurePosixPath(lowered).name
    if needle in name:
        return name.index(needle) + (0 if name.startswith(needle) else 10)
    if needle in lowered:
        return 100 + lowered.index(needle)
    in_name = _spread(needle, name)
    if in_name is not None:
        return 500 + in_name + (0 if name.startswith(needle[0]) else 10)
    in_path = _spread(needle, lowered)
    return None if in_path is None else 1_000 + in_path


def _spread(needle: str, text: str) -> int | None:
    """How far apart the letters of ``needle`` lie in ``text`` (each taken
    as early as possible after the first), or None when they are not all there."""
    position = text.find(needle[0])
    if position < 0:
        return None
    gaps = 0
    for char in needle[1:]:
        found = text.find(char, position + 1)
        if found < 0:
            return None
        gaps += found - position - 1
        position = found
    return gaps
