"""Which URLs ``web_fetch`` may open (P-6.6).

Trust comes from two places only: URLs the person typed this turn, and URLs a
``web_search`` returned in the same branch. A URL that shows up in a file, a
command's output or the model's own text grants nothing. A child branch
(a plan task, a team step) gets the person's URLs plus the found URLs of the
steps it depends on, passed explicitly through ``fork``.
"""

from __future__ import annotations

import re
import threading
from typing import Iterable
from urllib.parse import urlsplit, urlunsplit

from paicli_tui.plan.model import Plan, Task, TaskStatus

_URL_IN_TEXT = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)
_TRAILING_PUNCTUATION = ".,;:!?'\""
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_url(url: str) -> str | None:
    """Canonical form for comparison: lower-case scheme and host, no default
    port, no fragment, ``/`` for an empty path. None when not http(s)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname.lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    if parts.username or parts.password:
        credentials = parts.username or ""
        if parts.password:
            credentials += f":{parts.password}"
        netloc = f"{credentials}@{netloc}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def urls_in_text(text: str) -> list[str]:
    """http(s) URLs in free text, without the punctuation that ends a sentence
    or closes a bracket around the URL."""
    found = []
    for match in _URL_IN_TEXT.finditer(text):
        url = match.group(0)
        while url:
            last = url[-1]
            if last in _TRAILING_PUNCTUATION:
                url = url[:-1]
            elif last in _CLOSERS and url.count(last) > url.count(_CLOSERS[last]):
                url = url[:-1]
            else:
                break
        if url:
            found.append(url)
    return found


class TrustedUrls:
    """Thread-safe: read-only tools of one response may run in parallel."""

    def __init__(self, user_urls: Iterable[str] = (), inherited: Iterable[str] = ()) -> None:
        self._user = _normalized(user_urls)
        self._inherited = _normalized(inherited)
        self._found: list[str] = []
        self._found_set: set[str] = set()
        self._lock = threading.Lock()

    @classmethod
    def from_user_text(cls, text: str) -> "TrustedUrls":
        return cls(user_urls=urls_in_text(text))

    @property
    def user_urls(self) -> tuple[str, ...]:
        return tuple(sorted(self._user))

    def allows(self, url: str) -> bool:
        key = normalize_url(url)
        if key is None:
            return False
        with self._lock:
            return key in self._user or key in self._inherited or key in self._found_set

    def add_search_results(self, urls: Iterable[str]) -> None:
        with self._lock:
            for url in urls:
                key = normalize_url(url)
                if key is not None and key not in self._found_set:
                    self._found_set.add(key)
                    self._found.append(key)

    @property
    def inherited_urls(self) -> tuple[str, ...]:
        """URLs trusted because an earlier task of the branch found them."""
        return tuple(sorted(self._inherited))

    @property
    def found_urls(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._found)

    def fork(self, extra_urls: Iterable[str] = ()) -> "TrustedUrls":
        """A child branch: the person's URLs plus ``extra_urls`` (the found
        URLs of completed dependencies). Neither this branch's found URLs nor
        its inherited ones pass down unless given in ``extra_urls``."""
        return TrustedUrls(user_urls=self._user, inherited=extra_urls)


def _normalized(urls: Iterable[str]) -> frozenset[str]:
    return frozenset(key for key in (normalize_url(u) for u in urls) if key is not None)


class BranchUrls:
    """URLs a completed task or step passes down to those that depend on it
    (P-6.6), in /plan and /team alike.

    A branch is its own ``web_search`` finds plus what its completed direct
    dependencies passed down to it; nothing is recorded for a task that did
    not complete, so its finds reach nobody. Thread-safe: tasks finish on
    different worker threads.
    """

    def __init__(self) -> None:
        self._by_step: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def inherited(self, plan: Plan, task: Task) -> dict[str, list[str]]:
        """URLs each completed direct dependency of ``task`` passed down."""
        with self._lock:
            return {
                dep: list(self._by_step.get(dep, []))
                for dep in task.dependencies
                if plan.task(dep).status is TaskStatus.COMPLETED
            }

    def record(self, step_id: str, inherited: Iterable[str], found: Iterable[str]) -> None:
        urls = list(dict.fromkeys([*inherited, *found]))
        with self._lock:
            self._by_step[step_id] = urls

    def passed_down(self, step_id: str) -> list[str]:
        with self._lock:
            return list(self._by_step.get(step_id, []))


def flatten(passed_down: dict[str, list[str]]) -> list[str]:
    """All inherited URLs once each, in dependency order."""
    return list(dict.fromkeys(url for urls in passed_down.values() for url in urls))
