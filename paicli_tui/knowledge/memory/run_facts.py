"""Facts agents save during one run, held back until the run ends.

A run does not write facts by itself, and a cancelled run writes none
(P-9.4): ``save_memory`` puts a fact here, the session keeps them all in one
transaction when the run ends any way but cancelled, and drops them when it
was cancelled. Held in memory, so a killed process writes none either.
Agents of the same run can already find them with ``search_memory``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from paicli_tui.knowledge.memory.facts import checked_text
from paicli_tui.knowledge.memory.text_query import query_terms

#: An agent saving more than this in one run is looping, not remembering.
MAX_FACTS_PER_RUN = 50


@dataclass(frozen=True)
class PendingFact:
    number: int
    """1, 2, … within the run, until it gets its database id."""
    text: str
    agent: str


class RunFacts:
    def __init__(self, run: str) -> None:
        self.run = run
        self._facts: list[PendingFact] = []
        self._lock = threading.Lock()

    def save(self, text: str, agent: str) -> PendingFact:
        """FactError for an empty or over-long fact, or past the run's limit."""
        from paicli_tui.knowledge.memory.facts import FactError

        cleaned = checked_text(text)
        with self._lock:
            if any(fact.text == cleaned for fact in self._facts):
                return next(fact for fact in self._facts if fact.text == cleaned)
            if len(self._facts) >= MAX_FACTS_PER_RUN:
                raise FactError(f"this run already saved {MAX_FACTS_PER_RUN} facts; save only what later work needs")
            fact = PendingFact(len(self._facts) + 1, cleaned, agent)
            self._facts.append(fact)
            return fact

    def pending(self) -> list[PendingFact]:
        with self._lock:
            return list(self._facts)

    def take(self) -> list[PendingFact]:
        """Everything held, emptying the buffer (the run ended)."""
        with self._lock:
            facts, self._facts = self._facts, []
            return facts

    def search(self, query: str, limit: int) -> list[PendingFact]:
        """Held facts with a word starting with a search term of ``query``
        ("curr" finds "currency"), most terms shared first."""
        terms = set(query_terms(query))
        if not terms:
            return []
        scored = []
        for fact in self.pending():
            words = query_terms(fact.text, keep_stop_words=True)
            shared = sum(1 for term in terms if any(word.startswith(term) for word in words))
            if shared:
                scored.append((-shared, fact.number, fact))
        return [fact for *_, fact in sorted(scored)[:limit]]
