"""Lines a text replay adds around each run: what the person asked, and
how the run ended. A live `paicli run` has the goal on its own command line;
a replay of an app session would otherwise never show what was typed, and a
plan cancelled at review would look like one that ran."""

from __future__ import annotations

from typing import TextIO

from paicli_tui import events as ev
from paicli_tui.records.sessions import outcome_word

#: Every line this printer writes starts with one of these, so a reader (or
#: a test) can tell the replay's own lines from the run's.
ASKED, ENDED = "▷ ", "■ "


class RunMarks:
    """A bus subscriber for replays, called before the run's own printer."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.runs = 0
        self._kind = ""
        self._started = False

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.RunRequested):
            self.runs += 1
            self._kind, self._started = event.kind, False
            first, *rest = (event.goal or "(empty)").splitlines() or ["(empty)"]
            self.out.write(f"{ASKED}run {self.runs} · {event.kind} · you: {first}\n")
            for line in rest:
                self.out.write(f"{' ' * len(ASKED)}{line}\n")
        elif isinstance(event, ev.RunStarted):
            self._started = True
        elif isinstance(event, ev.RunOutcomeRecorded):
            word = outcome_word(event.status)
            note = ""
            if self._kind in ("plan", "team") and word == "cancelled" and not self._started:
                note = " at review: the plan never ran"
            self.out.write(f"{ENDED}run {self.runs} {word}{note}\n")
        self.out.flush()
