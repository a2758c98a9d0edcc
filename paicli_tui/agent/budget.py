"""Per-agent limits on model calls, tokens, money and wall time (P-6.7),
and the per-run limits every agent of one run shares.

A stopped agent's summary must fit inside the limit that stopped it: a time
limit keeps a slice of itself for the summary (``work_deadline``), and a
token, turn or cost limit, once reached, leaves nothing to pay one with, so
the summary is skipped and the stop says so (``summary_fits``)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

#: The slice of a time limit kept for the summary after a stop: a quarter
#: of the limit, at most this many seconds.
SUMMARY_SLICE_S = 10.0
SUMMARY_SLICE_SHARE = 0.25


#: The most of a run's time kept for summaries when calls are slow.
MAX_RESERVE_SHARE = 0.4


def summary_slice(limit_s: float) -> float:
    return min(SUMMARY_SLICE_S, limit_s * SUMMARY_SLICE_SHARE)


def dollars(value: float) -> str:
    """``$0.50``; sub-cent amounts keep four places (``$0.0012``)."""
    return f"${value:.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"


@dataclass
class Budget:
    max_turns: int | None = None
    max_tokens: int | None = None
    max_seconds: float | None = None
    #: US dollars per agent turn; needs ``price_of``.
    max_cost: float | None = None
    turns: int = 0
    tokens: int = 0
    cost: float = 0.0
    started: float = field(default_factory=time.monotonic)
    #: The run this agent belongs to: its limits stop the agent too.
    run: "RunBudget | None" = None
    #: What a call's usage costs (the session knows the model's price);
    #: the run's when not set here.
    price_of: "Callable[[Any], float] | None" = None

    def pricing(self) -> "Callable[[Any], float] | None":
        return self.price_of or (self.run.price_of if self.run is not None else None)

    def restart_clock(self) -> None:
        self.started = time.monotonic()
        self.turns = 0
        self.tokens = 0
        self.cost = 0.0

    def charge(self, tokens: int, cost: float = 0.0) -> None:
        self.turns += 1
        self.tokens += tokens
        self.cost += cost

    def cost_room(self) -> float | None:
        """Dollars left before this agent's or its run's cost limit; None
        when neither has one."""
        rooms = []
        if self.max_cost is not None:
            rooms.append(self.max_cost - self.cost)
        if self.run is not None and self.run.max_cost is not None:
            rooms.append(self.run.max_cost - self.run.spent())
        return min(rooms) if rooms else None

    def summary_fits(self, reason_kind: str) -> bool:
        """Whether a summary call may follow a stop of ``reason_kind``
        (seconds | tokens | turns | cost | guard): a time limit keeps a slice
        for it; a token or cost limit, once reached, has nothing left to pay
        it with. The turn limit (a runaway stop, 50 by default) and the
        guard allow the one call that says what was done."""
        return reason_kind in ("seconds", "turns", "guard")

    def exceeded_kind(self) -> tuple[str, str] | None:
        """(turns | tokens | cost | seconds, words for the person), or None."""
        if self.max_turns is not None and self.turns >= self.max_turns:
            return "turns", f"turn limit reached ({self.turns}/{self.max_turns} model calls)"
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            return "tokens", f"token limit reached ({self.tokens}/{self.max_tokens} tokens)"
        if self.max_cost is not None and self.cost >= self.max_cost:
            return "cost", f"stopped at the turn's {dollars(self.max_cost)} cost limit ({dollars(self.cost)} spent)"
        if self.max_seconds is not None:
            elapsed = time.monotonic() - self.started
            if elapsed >= self.max_seconds:
                return "seconds", f"time limit reached ({elapsed:.0f}s/{self.max_seconds:.0f}s)"
        return self.run.exceeded_kind() if self.run is not None else None

    def credit(self, seconds: float) -> None:
        """Give back time spent waiting for a model server slot."""
        if seconds > 0:
            self.started += seconds

    def run_deadline(self) -> float | None:
        """The run's own time limit, which no queueing moves."""
        return self.run.deadline() if self.run is not None else None

    def exceeded(self) -> str | None:
        """Which limit is used up, as words for the person, or None."""
        hit = self.exceeded_kind()
        return hit[1] if hit else None

    def deadline(self) -> float | None:
        """When the earlier of this agent's and its run's time limits ends,
        as a ``time.monotonic()`` value; None without a time limit. The
        summary after a stop must end by then."""
        own = self.started + self.max_seconds if self.max_seconds is not None else None
        run = self.run.deadline() if self.run is not None else None
        if own is None or run is None:
            return own if run is None else run
        return min(own, run)

    def time_stop(self) -> tuple[str, str]:
        """The stop at the work deadline, in words: which time limit, and
        the slice of it kept for the summary."""
        own = self.started + self.max_seconds if self.max_seconds is not None else None
        run = self.run.deadline() if self.run is not None else None
        if own is not None and (run is None or own <= run):
            limit, words = self.max_seconds or 0.0, "time limit reached"
        elif self.run is not None and self.run.max_seconds is not None:
            limit, words = self.run.max_seconds, "run time limit reached"
            return "seconds", f"{words} ({limit:g}s, the last {self.run.summary_reserve():.3g}s kept for the summary)"
        else:
            return "seconds", "time limit reached"
        return "seconds", f"{words} ({limit:g}s, the last {summary_slice(limit):g}s kept for the summary)"

    def work_deadline(self) -> float | None:
        """When work calls are cut off, mid-stream if need be: the deadline
        less the slice kept for the summary."""
        ends = []
        if self.max_seconds is not None:
            ends.append(self.started + self.max_seconds - summary_slice(self.max_seconds))
        if self.run is not None and self.run.max_seconds is not None:
            ends.append(self.run.started + self.run.max_seconds - self.run.summary_reserve())
        return min(ends) if ends else None


class RunBudget:
    """Limits for a whole run (thread-safe). The session charges it with
    every model call of the run, planner and reviewers included; agents
    check it before each call and the executor stops dispatching once one
    is used up."""

    def __init__(
        self, max_turns: int | None = None, max_tokens: int | None = None, max_seconds: float | None = None,
        max_cost: float | None = None, price_of: "Callable[[Any], float] | None" = None,
    ) -> None:
        self.price_of = price_of
        self.max_turns = max_turns
        self.max_tokens = max_tokens
        self.max_seconds = max_seconds
        self.max_cost = max_cost
        self.turns = 0
        self.tokens = 0
        self.cost = 0.0
        self.started = time.monotonic()
        self._lock = threading.Lock()
        #: How long a model call takes on the run's server (None: not known yet).
        self.call_seconds: "Callable[[], float | None] | None" = None

    def summary_reserve(self) -> float:
        """The end of the run's time kept for stopped agents' summaries: the
        usual slice, or one model call as the server takes them when that is
        longer (up to ``MAX_RESERVE_SHARE`` of the limit), so a summary is
        not cut before it could be answered."""
        limit = self.max_seconds or 0.0
        need = self.call_seconds() if self.call_seconds is not None else None
        return max(summary_slice(limit), min(need or 0.0, limit * MAX_RESERVE_SHARE))

    def dispatch_limit(self) -> tuple[str, str] | None:
        """What stops new tasks: a spent limit, or less time left than one
        model call takes, since a task started then would only queue and be cut."""
        hit = self.exceeded_kind()
        if hit is not None or self.max_seconds is None or self.call_seconds is None:
            return hit
        need = self.call_seconds()
        left = self.started + self.max_seconds - time.monotonic()
        if need and left < need:
            return "seconds", (f"run time nearly used up ({left:.0f}s left, less than one model call takes here, "
                               f"about {need:.0f}s); no new task started")
        return None

    def charge(self, tokens: int, cost: float = 0.0) -> None:
        with self._lock:
            self.turns += 1
            self.tokens += tokens
            self.cost += cost

    def charge_cost(self, cost: float) -> None:
        """Money a call spent that sent no usage (a reply cut at the limit)."""
        with self._lock:
            self.cost += cost

    def spent(self) -> float:
        with self._lock:
            return self.cost

    def exceeded_kind(self) -> tuple[str, str] | None:
        """(tokens | turns | cost | seconds, words for the person), or None."""
        with self._lock:
            turns, tokens, cost = self.turns, self.tokens, self.cost
        if self.max_turns is not None and turns >= self.max_turns:
            return "turns", f"run turn limit reached ({turns}/{self.max_turns} model calls)"
        if self.max_tokens is not None and tokens >= self.max_tokens:
            return "tokens", f"run token limit reached ({tokens}/{self.max_tokens} tokens)"
        if self.max_cost is not None and cost >= self.max_cost:
            return "cost", f"stopped at the run's {dollars(self.max_cost)} cost limit ({dollars(cost)} spent)"
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
