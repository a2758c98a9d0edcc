"""Per-agent limits on model calls, tokens and wall time (P-6.7)."""

from __future__ import annotations

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

    def restart_clock(self) -> None:
        self.started = time.monotonic()
        self.turns = 0
        self.tokens = 0

    def charge(self, tokens: int) -> None:
        self.turns += 1
        self.tokens += tokens

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
        return None
