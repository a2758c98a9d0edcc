"""Engine events and the thread-safe bus that fans them out.

Events are small frozen dataclasses carrying data only (never widgets). The
engine publishes them from worker threads; subscribers (the ledger, the TUI
queue, the headless printer) must be quick and must not block: the TUI
subscriber only enqueues, and the app paints in coalesced batches.

Every event has an ``actor`` (the agent instance name: ``react``, ``planner``,
``task_3``, ``worker-1``, ``reviewer-step_2`` … or ``engine``). ``name`` is the
stable ledger vocabulary (see docs/ledger.md).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

Subscriber = Callable[["Event"], None]


@dataclass(frozen=True)
class Event:
    name: ClassVar[str] = "event"
    actor: str
    #: When the event happened (Unix seconds): stamped by the bus as it is
    #: published unless the event already carries one (a replayed event keeps
    #: its recorded time). Keyword-only, and left out of equality and of the
    #: payload: the ledger writes it as the line's ``ts``.
    ts: float | None = field(default=None, kw_only=True, compare=False, repr=False)

    def payload(self) -> dict[str, Any]:
        """Fields other than ``actor`` and ``ts``, as JSON-ready data."""
        data = dataclasses.asdict(self)
        data.pop("actor", None)
        data.pop("ts", None)
        return data


# --- session -----------------------------------------------------------------


@dataclass(frozen=True)
class SessionStarted(Event):
    name: ClassVar[str] = "session_started"
    mode: str
    goal: str
    model: str
    base_url: str
    workspace: str


@dataclass(frozen=True)
class ModeChanged(Event):
    name: ClassVar[str] = "mode_changed"
    mode: str


@dataclass(frozen=True)
class ModelChanged(Event):
    """``/model NAME``: later requests name ``model``."""

    name: ClassVar[str] = "model_changed"
    model: str
    label: str


# --- model calls (P-1) --------------------------------------------------------


@dataclass(frozen=True)
class ModelRequest(Event):
    """One chat completion request. ``new_messages`` holds only the messages
    appended since this actor's previous request (the full list would make the
    ledger grow quadratically); ``system_sha256`` lets `verify` check P-2.4."""

    name: ClassVar[str] = "model_request"
    call_id: str
    model: str
    tools: tuple[str, ...]
    message_count: int
    system_sha256: str
    new_messages: tuple[dict, ...] = ()
    #: The output limit sent (None: none), and the ``response_format`` type
    #: sent (``json_schema``, ``json_object``; empty: none).
    max_tokens: int | None = None
    response_format: str = ""


@dataclass(frozen=True)
class ModelDelta(Event):
    """A streamed fragment. ``kind`` is ``content``, ``reasoning`` or
    ``tool_call`` (then ``text`` is an argument fragment and ``tool`` names
    the tool). Not written to the ledger one by one: `model_response` carries
    the whole text."""

    name: ClassVar[str] = "model_delta"
    call_id: str
    kind: str
    text: str
    tool: str = ""


@dataclass(frozen=True)
class ModelResponse(Event):
    name: ClassVar[str] = "model_response"
    call_id: str
    content: str
    reasoning: str
    tool_calls: tuple[dict, ...]
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    duration_s: float
    unexecuted_markup: str | None = None
    #: How many of ``tool_calls`` were read from ``<tool_call>`` text in the
    #: content (``tool_calls_in_content``), not sent as real tool calls.
    recovered_tool_calls: int = 0
    #: False when the server sent no usage for this call (llama-cpp-python
    #: ignores ``stream_options``): the token fields are then 0, not counted.
    usage_reported: bool = True


@dataclass(frozen=True)
class ModelRetry(Event):
    name: ClassVar[str] = "model_retry"
    call_id: str
    attempt: int
    delay_s: float
    reason: str


@dataclass(frozen=True)
class CapabilityDropped(Event):
    """The server refused an optional request field (HTTP 400 naming it, or
    a 5xx naming ``response_format``): the call is sent once more without it
    or in its ``fallback`` form, and no later call of this session sends
    more. ``field`` is ``response_format`` or ``max_tokens``."""

    name: ClassVar[str] = "capability_dropped"
    call_id: str
    field: str
    reason: str
    #: What is sent instead from now on: a weaker ``response_format`` form
    #: (``json_object_schema``, ``json_object``) or ``max_completion_tokens``;
    #: empty when the field is no longer sent at all.
    fallback: str = ""


@dataclass(frozen=True)
class ModelError(Event):
    name: ClassVar[str] = "model_error"
    call_id: str
    kind: str
    message: str


@dataclass(frozen=True)
class ModelCallCancelled(Event):
    """The call was stopped because the person cancelled (not a failure)."""

    name: ClassVar[str] = "model_cancelled"
    call_id: str


# --- tools (P-6) --------------------------------------------------------------


@dataclass(frozen=True)
class ToolCallStarted(Event):
    name: ClassVar[str] = "tool_call"
    call_id: str
    tool: str
    arguments: str


@dataclass(frozen=True)
class ToolCallFinished(Event):
    name: ClassVar[str] = "tool_result"
    call_id: str
    tool: str
    ok: bool
    summary: str
    content: str


@dataclass(frozen=True)
class ApprovalRequested(Event):
    name: ClassVar[str] = "approval_requested"
    tool: str
    arguments: str
    reason: str
    risky: bool = False
    scope: str = ""
    """What "Always" would grant, as a rule line; empty when not offered."""


@dataclass(frozen=True)
class ApprovalDecided(Event):
    name: ClassVar[str] = "approval_decided"
    tool: str
    decision: str  # "yes" | "no" | "always" | "edit" | "auto-denied" | "auto-approved"
    reason: str = ""
    arguments: str = ""
    """For "edit": the arguments (JSON) that ran instead of the model's."""


@dataclass(frozen=True)
class GrantAdded(Event):
    """The person granted a scope ("Always"): later calls inside it skip the
    question the mode would ask, never the risk check."""

    name: ClassVar[str] = "grant_added"
    rule: str
    description: str


@dataclass(frozen=True)
class GrantRevoked(Event):
    name: ClassVar[str] = "grant_revoked"
    rule: str


@dataclass(frozen=True)
class GrantKept(Event):
    """A grant is kept for the workspace beyond this session."""

    name: ClassVar[str] = "grant_kept"
    rule: str
    path: str


# --- checkpoints and skills (P-9.2, P-9.3) -----------------------------------------


@dataclass(frozen=True)
class CheckpointSaved(Event):
    """A file's state was kept just before a tool changed it. ``existed``:
    there was a file; ``stored``: its bytes were kept (False: over the
    checkpoint size limit, so an undo cannot restore it)."""

    name: ClassVar[str] = "checkpoint"
    run_id: str
    task_id: str
    path: str
    tool: str
    existed: bool
    stored: bool


@dataclass(frozen=True)
class RunChangesRecorded(Event):
    """A run ended: the files its tools changed (``/undo`` can revert them)
    and who ran commands in it (what a command changed cannot be undone)."""

    name: ClassVar[str] = "run_changes"
    run_id: str
    files: tuple[str, ...]
    commands: tuple[str, ...]
    unstored: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChangesReverted(Event):
    """An undo (``/undo``, the run screen, ``revert_turn``) put files back."""

    name: ClassVar[str] = "undo"
    run_id: str
    task_id: str
    restored: tuple[str, ...]
    overwritten: tuple[str, ...]
    skipped: tuple[str, ...]
    failed: tuple[str, ...] = ()


@dataclass(frozen=True)
class SkillLoaded(Event):
    """``load_skill`` added a skill's body to the conversation as a message
    of its own, right after the tool results of that model turn."""

    name: ClassVar[str] = "skill_loaded"
    call_id: str
    skill: str
    source: str
    path: str
    chars: int


# --- MCP servers (P-9.1) ---------------------------------------------------------
# Their tool calls are ordinary tool_call / tool_result events.


@dataclass(frozen=True)
class McpServerChanged(Event):
    """An MCP server changed state: ``state`` is starting | ready | failed
    (never became ready) | exited (died after it was ready) | stopping |
    stopped | untrusted (a workspace .mcp.json server waiting for the
    person's yes)."""

    name: ClassVar[str] = "mcp_server"
    server: str
    state: str
    transport: str
    source: str
    detail: str = ""
    tools: tuple[str, ...] = ()
    resources: int = 0
    pid: int = 0


@dataclass(frozen=True)
class McpResourceAttached(Event):
    """``@server:uri`` in the input: the resource's content went with the
    turn (``ok``), cut to ``chars`` characters when ``truncated``."""

    name: ClassVar[str] = "mcp_resource"
    server: str
    uri: str
    ok: bool
    chars: int = 0
    truncated: bool = False
    detail: str = ""


@dataclass(frozen=True)
class McpWorkspaceTrusted(Event):
    """The person agreed to start the servers of a workspace's .mcp.json
    (``sha256`` of the file agreed to; ``remembered``: kept for next time)."""

    name: ClassVar[str] = "mcp_trusted"
    path: str
    sha256: str
    servers: tuple[str, ...]
    remembered: bool = True


# --- agent loop ---------------------------------------------------------------


@dataclass(frozen=True)
class AgentNote(Event):
    """A note the loop adds to the conversation, e.g. the runaway guard."""

    name: ClassVar[str] = "agent_note"
    text: str


@dataclass(frozen=True)
class Compaction(Event):
    name: ClassVar[str] = "compaction"
    messages_before: int
    messages_after: int
    stubbed_results: int


@dataclass(frozen=True)
class HistoryCleared(Event):
    name: ClassVar[str] = "history_clear"
    dropped: int


@dataclass(frozen=True)
class AgentFinished(Event):
    """End of one agent turn. ``status``: final | partial | cancelled | failed."""

    name: ClassVar[str] = "agent_finished"
    status: str
    text: str
    reason: str = ""


# --- plans and runs (P-3, P-4, P-5) -----------------------------------------------


@dataclass(frozen=True)
class PlanProposed(Event):
    """A plan version: ``origin`` is initial | amendment | edit | replan | file."""

    name: ClassVar[str] = "plan_version"
    version: int
    origin: str
    goal: str
    plan: dict


@dataclass(frozen=True)
class PlanRejected(Event):
    """A planner reply (or edit) that failed P-3.2 validation."""

    name: ClassVar[str] = "plan_rejected"
    origin: str
    error: str


@dataclass(frozen=True)
class RepairRequested(Event):
    """A rejected structured reply is sent back to the agent that wrote it
    with the exact error (issue 16). ``kind`` is plan | report | verdict,
    ``attempt`` the repair's number (1 …), ``step_id`` and ``step_attempt``
    the team step and its attempt (empty and 0 for a plan)."""

    name: ClassVar[str] = "repair_requested"
    kind: str
    attempt: int
    error: str
    step_id: str = ""
    step_attempt: int = 0


@dataclass(frozen=True)
class TaskDispatched(Event):
    name: ClassVar[str] = "dispatch"
    task_id: str
    worker: str
    attempt: int = 1


@dataclass(frozen=True)
class TaskStatusChanged(Event):
    name: ClassVar[str] = "status"
    task_id: str
    status: str
    result: str = ""
    error: str = ""


@dataclass(frozen=True)
class ReplanTriggered(Event):
    name: ClassVar[str] = "replan_triggered"
    failed_task: str
    reason: str
    replans: int


@dataclass(frozen=True)
class RunFinished(Event):
    """End of a plan/team run. ``status`` is a plan status (P-3.1)."""

    name: ClassVar[str] = "run_finished"
    status: str
    summary: str
    counts: dict = field(default_factory=dict)
    #: The run's answer in full: the results of the plan's completed ends.
    answer: str = ""


# --- team (P-5) -----------------------------------------------------------------


@dataclass(frozen=True)
class WorkerReportParsed(Event):
    name: ClassVar[str] = "worker_report"
    step_id: str
    attempt: int
    status: str  # completed | blocked | invalid
    result: str = ""
    reason: str = ""


@dataclass(frozen=True)
class ReviewStarted(Event):
    name: ClassVar[str] = "review_started"
    step_id: str
    attempt: int


@dataclass(frozen=True)
class ReviewVerdictGiven(Event):
    name: ClassVar[str] = "review_verdict"
    step_id: str
    attempt: int
    approved: bool
    feedback: str
    #: An approval's issues and suggestions, kept and shown with the step (P-5.6).
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class StepRetry(Event):
    name: ClassVar[str] = "retry"
    step_id: str
    attempt: int
    feedback: str


# --- memory and the code index (P-9.4) ----------------------------------------------


@dataclass(frozen=True)
class MemorySaved(Event):
    """A fact is kept: saved by the person (actor ``session``) or, when its
    run ended without being cancelled, by the agent that is the actor."""

    name: ClassVar[str] = "memory_saved"
    fact_id: int
    text: str
    source: str  # person | agent
    run: str = ""


@dataclass(frozen=True)
class MemoryDiscarded(Event):
    """Facts agents saved in a run that was cancelled: none is kept."""

    name: ClassVar[str] = "memory_discarded"
    count: int
    reason: str


@dataclass(frozen=True)
class MemoryDeleted(Event):
    name: ClassVar[str] = "memory_deleted"
    fact_id: int


@dataclass(frozen=True)
class MemoryRecalled(Event):
    """Facts put into an agent's first user message (ids as text)."""

    name: ClassVar[str] = "memory_recalled"
    facts: tuple[str, ...]


@dataclass(frozen=True)
class IndexProgress(Event):
    """The indexer has looked at ``done`` of ``total`` files (a few per second)."""

    name: ClassVar[str] = "index_progress"
    done: int
    total: int
    path: str


@dataclass(frozen=True)
class IndexBuilt(Event):
    """An index run ended; ``complete`` is false when it was cancelled."""

    name: ClassVar[str] = "index_built"
    files: int
    added: int
    changed: int
    unchanged: int
    removed: int
    skipped: int
    chunks: int
    duration_s: float
    complete: bool
    embeddings: str


class EventBus:
    """Thread-safe fan-out. ``mode`` is the run mode stamped into ledger lines
    (react / plan / team); it is set by whoever starts a run. With a
    ``redactor`` every subscriber gets events with the session's secrets
    replaced (issue 12)."""

    def __init__(
        self, session_id: str, mode: str = "react", *, redactor=None, clock: Callable[[], float] = time.time
    ) -> None:
        self.session_id = session_id
        self.mode = mode
        #: What stamps ``Event.ts`` (tests pass a fake clock for stable times).
        self.clock = clock
        self._subscribers: list[Subscriber] = []
        self._lock = threading.Lock()
        # A Redactor (paicli_tui.policy.redaction) that every event passes before
        # any subscriber sees it; None when the session knows no secret.
        self._redactor = redactor if redactor else None

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        with self._lock:
            self._subscribers = [*self._subscribers, subscriber]

        def unsubscribe() -> None:
            with self._lock:
                self._subscribers = [s for s in self._subscribers if s is not subscriber]

        return unsubscribe

    def publish(self, event: Event) -> None:
        if self._redactor is not None:
            self._redactor.filter(event, self._deliver)
        else:
            self._deliver(event)

    def _deliver(self, event: Event) -> None:
        # Stamped here, after the redactor, so the pieces it re-emits get a
        # time too. The event is frozen for its readers; the bus is its writer.
        if event.ts is None:
            object.__setattr__(event, "ts", self.clock())
        # Copy-on-write list: publishing takes no lock on the hot path.
        for subscriber in self._subscribers:
            subscriber(event)


# --- run records (P-8) ------------------------------------------------------------
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
    actually runs (a plan file or a hand edit included)."""

    name: ClassVar[str] = "run_started"
    policy: str
    parallelism: int
    workers: tuple[str, ...]
    max_replans: int
    version: int
    plan: dict


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
class SecretsRedacted(Event):
    """Secrets were replaced in a tool result before it was recorded or sent
    to the model. ``kinds`` names what was found (never the values)."""

    name: ClassVar[str] = "secrets_redacted"
    call_id: str
    tool: str
    count: int
    kinds: tuple[str, ...] = ()
