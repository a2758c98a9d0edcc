"""Per-agent limits on model calls, tokens and wall time (P-6.7), and the
per-run limits every agent of one run shares."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field


@dataclass
class Budget:
    max_turns: int | None = None
    max_tokens: int | None = None
    max_seconds: float | None = None
    turns: int = 0
    tokens: int = 0
    started: float = field(default_factory=time.monotonic)
    #: The run this agent belongs to: its limits stop the agent too.
    run: "RunBudget | None" = None

    def restart_clock(self) -> None:
        self.started = time.monotonic()
        self.turns = 0
        self.tokens = 0

    def charge(self, tokens: int) -> None:
        self.turns += 1
        self.tokens += tokens

    def credit(self, seconds: float) -> None:
        """Give back time spent waiting for a model server slot."""
        if seconds > 0:
            self.started += seconds

    def run_deadline(self) -> float | None:
        """The run's own time limit, which no queueing moves."""
        return self.run.deadline() if self.run is not None else None

    def exceeded(self) -> str | None:
        """Which limit is used up, as words for the person, or None."""
        if self.max_turns is not None and self.turns >= self.max_turns:
            return f"turn limit reached ({self.turns}/{self.max_turns} model calls)"
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            return f"token limit reached ({self.tokens}/{self.max_tokens} tokens)"
        if self.max_seconds is not None:
            elapsed = time.monotonic() - self.started
            if elapsed >= self.max_seconds:
                return f"time limit reached ({elapsed:.0f}s/{self.max_seconds:.0f}s)"
        return self.run.exceeded() if self.run is not None else None

    def deadline(self) -> float | None:
        """When the earlier of this agent's and its run's time limits ends,
        as a ``time.monotonic()`` value; None without a time limit. A model
        call is cut off there, mid-stream if need be."""
        own = self.started + self.max_seconds if self.max_seconds is not None else None
        run = self.run.deadline() if self.run is not None else None
        if own is None or run is None:
            return own if run is None else run
        return min(own, run)


class RunBudget:
    """Limits for a whole run (thread-safe). The session charges it with
    every model call of the run, planner and reviewers included; agents
    check it before each call and the executor stops dispatching once one
    is used up."""

    def __init__(
        self, max_turns: int | None = None, max_tokens: int | None = None, max_seconds: float | None = None
    ) -> None:
        self.max_turns = max_turns
        self.max_tokens = max_tokens
        self.max_seconds = max_seconds
        self.turns = 0
        self.tokens = 0
        self.started = time.monotonic()
        self._lock = threading.Lock()

    def charge(self, tokens: int) -> None:
        with self._lock:
            self.turns += 1
            self.tokens += tokens

    def exceeded_kind(self) -> tuple[str, str] | None:
        """(tokens | turns | seconds, words for the person), or None."""
        with self._lock:
            turns, tokens = self.turns, self.tokens
        if self.max_turns is not None and turns >= self.max_turns:
            return "turns", f"run turn limit reached ({turns}/{self.max_turns} model calls)"
        if self.max_tokens is not None and tokens >= self.max_tokens:
            return "tokens", f"run token limit reached ({tokens}/{self.max_tokens} tokens)"
        if self.max_seconds is not None:
            elapsed = time.monotonic() - self.started
            if elapsed >= self.max_seconds:
                return "seconds", f"run time limit reached ({elapsed:.0f}s/{self.max_seconds:.0f}s)"
        return None

    def exceeded(self) -> str | None:
        hit = self.exceeded_kind()
        return hit[1] if hit else None

    def deadline(self) -> float | None:
        """The run's time limit as a ``time.monotonic()`` value, or None."""
        return self.started + self.max_seconds if self.max_seconds is not None else None
