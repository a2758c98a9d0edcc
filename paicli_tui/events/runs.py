"""Events: run records (P-8)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from paicli_tui.events.base import Event


# Facts the ledger needs so a run can be rebuilt, reported and verified alone.


@dataclass(frozen=True)
class RunRequested(Event):
    """A run begins: ``kind`` is react | plan | team. ``limits`` holds the
    per-agent and per-run budgets in force, ``prices`` the price per million
    tokens of the model used (empty when none is configured),
    ``attachments`` the files attached with ``@path`` (``Attachment.record()``
    each: path and size, never the content)."""

    name: ClassVar[str] = "run_requested"
    kind: str
    goal: str
    limits: dict = field(default_factory=dict)
    prices: dict = field(default_factory=dict)
    attachments: tuple = ()


@dataclass(frozen=True)
class RunStarted(Event):
    """The plan executor starts a plan version: the scheduling facts `verify`
    checks against (``parallelism`` is the effective limit) and the plan it
    actually runs (a plan file or a hand edit included). ``kind`` is plan or
    team; empty in ledgers written before it was recorded."""

    name: ClassVar[str] = "run_started"
    policy: str
    parallelism: int
    workers: tuple[str, ...]
    max_replans: int
    version: int
    plan: dict
    kind: str = ""
    #: Where its tasks run: "local", or the executor and cluster ("ray @ HOST:PORT").
    executor: str = ""

    @property
    def run_kind(self) -> str:
        """plan or team; a ledger written before ``kind`` was recorded says
        it through the actor (the team's orchestrator)."""
        return self.kind or ("team" if self.actor == "orchestrator" else "plan")


@dataclass(frozen=True)
class RunLimitReached(Event):
    """A per-run budget is used up: no new task is dispatched after this."""

    name: ClassVar[str] = "run_limit"
    limit: str  # tokens | turns | seconds
    reason: str


@dataclass(frozen=True)
class RunCancelled(Event):
    """The person asked to stop the current run (Esc, Ctrl+C)."""

    name: ClassVar[str] = "run_cancelled"
    reason: str


@dataclass(frozen=True)
class RunOutcomeRecorded(Event):
    """How a run ended, as `paicli run` reports it (``ok`` → exit code 0)."""

    name: ClassVar[str] = "run_outcome"
    kind: str
    ok: bool
    status: str
    text: str


@dataclass(frozen=True)
class RunResumed(Event):
    """An interrupted /plan or /team run goes on in the same ledger run.
    ``stopped`` says why it stopped (killed, cancelled, a budget), ``kept``
    the tasks whose results and merged changes are kept (not run again),
    ``redone`` the tasks that were running and start again from their base.
    ``plan`` is the plan version in force, ``statuses`` every task's status
    as the run goes on; ``integration`` the isolated run's head it continues
    from ("" without isolation); ``spent`` the run budget already used
    (turns, tokens, seconds); ``edited`` the files changed in the workspace
    since the run stopped (merged at the end, never overwritten); ``kind``,
    ``goal`` and ``workers`` as the run was started; ``executor`` where the
    resumed part's tasks run (as in run_started)."""

    name: ClassVar[str] = "run_resumed"
    stopped: str
    kept: tuple[str, ...]
    redone: tuple[str, ...]
    version: int
    plan: dict
    statuses: dict = field(default_factory=dict)
    replans: int = 0
    integration: str = ""
    spent: dict = field(default_factory=dict)
    edited: tuple[str, ...] = ()
    kind: str = ""
    goal: str = ""
    workers: tuple[str, ...] = ()
    executor: str = ""


@dataclass(frozen=True)
class SecretsRedacted(Event):
    """Secrets were replaced in a tool result before it was recorded or sent
    to the model. ``kinds`` names what was found (never the values)."""

    name: ClassVar[str] = "secrets_redacted"
    call_id: str
    tool: str
    count: int
    kinds: tuple[str, ...] = ()
