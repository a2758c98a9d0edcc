"""Engine events and the thread-safe bus that fans them out.

The vocabulary is split by domain into this package's modules and every
name is re-exported here, so ``from paicli_tui import events as ev`` reads
the same wherever an event is used.

Events are small frozen dataclasses carrying data only (never widgets). The
engine publishes them from worker threads; subscribers (the ledger, the TUI
queue, the headless printer) must be quick and must not block: the TUI
subscriber only enqueues, and the app paints in coalesced batches.

Every event has an ``actor`` (the agent instance name: ``react``, ``planner``,
``task_3``, ``worker-1``, ``reviewer-step_2`` … or ``engine``). ``name`` is the
stable ledger vocabulary (see docs/ledger.md).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from paicli_tui.events.base import Subscriber, Event, EventBus

# Each domain's classes are built on first use: some seventy frozen
# dataclasses cost the first screen some 50 ms that it does not need.
_MODULES: dict[str, tuple[str, ...]] = {
    "session": ("SessionStarted", "ModeChanged", "ModelChanged"),
    "model": ("ModelRequest", "ModelDelta", "ModelResponse", "ModelRetry", "ModelQueued", "ServerProbed", "CapabilityDropped", "ModelError", "ModelCallCancelled"),
    "tools": ("ToolCallStarted", "ToolCallFinished", "ApprovalRequested", "ApprovalDecided", "GrantAdded", "GrantRevoked", "GrantKept"),
    "changes": ("CheckpointSaved", "RunChangesRecorded", "ChangesReverted", "SkillLoaded"),
    "mcp": ("McpServerChanged", "McpResourceAttached", "McpWorkspaceTrusted"),
    "hooks": ("HookRan", "HooksTrusted"),
    "checks": ("CheckRan", "ReceiptsSent"),
    "agent": ("AgentNote", "Compaction", "HistoryCleared", "AgentFinished"),
    "plans": ("PlanProposed", "PlanRejected", "RepairRequested", "TaskDispatched", "TaskPlaced", "TaskStatusChanged", "ReplanTriggered", "RunFinished"),
    "team": ("WorkerReportParsed", "ReviewStarted", "ReviewVerdictGiven", "StepRetry"),
    "knowledge": ("MemorySaved", "MemoryHeld", "MemoryDiscarded", "MemoryDeleted", "MemoryRecalled", "IndexProgress", "IndexBuilt"),
    "runs": ("RunRequested", "RunStarted", "RunLimitReached", "RunCancelled", "RunOutcomeRecorded", "RunResumed", "SecretsRedacted"),
    "workspace": ("WorkspaceSnapshot", "TaskBase", "TaskCommitted", "TaskMerged", "MergeConflict", "ConflictDecided", "RunApplied", "IsolationSwept"),
}
_HOME = {name: module for module, names in _MODULES.items() for name in names}


def __getattr__(name: str) -> object:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))


def load_all() -> None:
    """Import every domain module: for whoever walks ``Event``'s subclasses."""
    for module in _MODULES:
        import_module(f"{__name__}.{module}")


if TYPE_CHECKING:
    from paicli_tui.events.session import SessionStarted, ModeChanged, ModelChanged
    from paicli_tui.events.model import (
        ModelRequest, ModelDelta, ModelResponse, ModelRetry, ModelQueued, ServerProbed, CapabilityDropped, ModelError, ModelCallCancelled,
    )
    from paicli_tui.events.tools import (
        ToolCallStarted, ToolCallFinished, ApprovalRequested, ApprovalDecided, GrantAdded, GrantRevoked, GrantKept,
    )
    from paicli_tui.events.changes import CheckpointSaved, RunChangesRecorded, ChangesReverted, SkillLoaded
    from paicli_tui.events.mcp import McpServerChanged, McpResourceAttached, McpWorkspaceTrusted
    from paicli_tui.events.hooks import HookRan, HooksTrusted
    from paicli_tui.events.checks import CheckRan, ReceiptsSent
    from paicli_tui.events.agent import AgentNote, Compaction, HistoryCleared, AgentFinished
    from paicli_tui.events.plans import (
        PlanProposed, PlanRejected, RepairRequested, TaskDispatched, TaskPlaced, TaskStatusChanged, ReplanTriggered, RunFinished,
    )
    from paicli_tui.events.team import WorkerReportParsed, ReviewStarted, ReviewVerdictGiven, StepRetry
    from paicli_tui.events.knowledge import (
        MemorySaved, MemoryHeld, MemoryDiscarded, MemoryDeleted, MemoryRecalled, IndexProgress, IndexBuilt,
    )
    from paicli_tui.events.runs import (
        RunRequested, RunStarted, RunLimitReached, RunCancelled, RunOutcomeRecorded, RunResumed, SecretsRedacted,
    )
    from paicli_tui.events.workspace import (
        WorkspaceSnapshot, TaskBase, TaskCommitted, TaskMerged, MergeConflict, ConflictDecided, RunApplied, IsolationSwept,
    )

__all__ = [
    "Subscriber", "Event", "EventBus", "SessionStarted", "ModeChanged", "ModelChanged", "ModelRequest",
    "ModelDelta", "ModelResponse", "ModelRetry", "ModelQueued", "ServerProbed", "CapabilityDropped", "ModelError", "ModelCallCancelled",
    "ToolCallStarted", "ToolCallFinished", "ApprovalRequested", "ApprovalDecided", "GrantAdded", "GrantRevoked",
    "GrantKept", "CheckpointSaved", "RunChangesRecorded", "ChangesReverted", "SkillLoaded", "McpServerChanged",
    "McpResourceAttached", "McpWorkspaceTrusted", "AgentNote", "Compaction", "HistoryCleared", "AgentFinished",
    "PlanProposed", "PlanRejected", "RepairRequested", "TaskDispatched", "TaskPlaced", "TaskStatusChanged", "ReplanTriggered",
    "RunFinished", "WorkerReportParsed", "ReviewStarted", "ReviewVerdictGiven", "StepRetry", "MemorySaved",
    "MemoryHeld", "MemoryDiscarded", "MemoryDeleted", "MemoryRecalled", "IndexProgress", "IndexBuilt", "RunRequested",
    "RunStarted", "RunLimitReached", "RunCancelled", "RunOutcomeRecorded", "RunResumed", "SecretsRedacted",
    "WorkspaceSnapshot", "TaskBase", "TaskCommitted", "TaskMerged", "MergeConflict", "ConflictDecided",
    "RunApplied", "IsolationSwept",
    "HookRan", "HooksTrusted", "CheckRan", "ReceiptsSent",
]
