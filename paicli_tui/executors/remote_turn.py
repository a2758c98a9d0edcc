"""What runs on a Ray worker: one turn of a task's agent in a scratch clone.

Kept free of Ray's API except through the ``relay`` handed in, so the
remote side reads as the local turn it mirrors: check the base out, build
the agent as the session would (same model settings, tools and sandbox,
rooted at the scratch tree), run the turn, and hand back its commit as a
thin bundle with the history and the outcome. The API key is read from the
worker's own environment by the settings, as on the person's machine: a
cluster paicli starts inherits it, one it joins must give it its workers."""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from paicli_tui.executors.bundles import pack, scratch_checkout, scratch_commit
from paicli_tui.workspace.git import Git

#: How often the remote side sends what its agent published (one call per batch).
FLUSH_S = 0.1


@dataclass(frozen=True)
class TurnSpec:
    """Everything a remote turn needs but the base bundle and the key."""

    key: str
    task_id: str
    agent: str
    session_id: str
    settings: Any
    messages: list
    text: str | None
    client_options: dict
    approval_mode: str
    auto_approve: bool
    max_history_chars: int
    user_urls: tuple[str, ...] = ()
    inherited_urls: tuple[str, ...] = ()
    excludes: str = ""
    attempt: int = 1
    #: The compact profile's tool names for this task (None: every tool) and
    #: the history the server's context holds (chars), as the local agent has them.
    offered_tools: tuple[str, ...] | None = None
    context_chars: int | None = None
    #: What a call's usage costs, as the local agent prices it: the turn's
    #: money limit is held where the calls are made.
    price_of: Any = None


@dataclass
class TurnReport:
    status: str
    text: str
    reason: str
    messages: list
    found_urls: tuple[str, ...]
    base: str
    result: str
    bundle: bytes | None
    node_id: str = ""
    address: str = ""
    usage: Any = None
    truncated_at: int | None = None
    extra: dict = field(default_factory=dict)


class _Batcher:
    """Collects the remote bus's events and sends them in batches; each send
    (empty ones too) answers whether the person cancelled the task, which
    sets ``cancel`` so the agent stops its model call as it would here."""

    def __init__(self, send: Callable[[list], bool], cancel: threading.Event) -> None:
        self._send = send
        self.cancel = cancel
        self._pending: list = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="paicli-relay", daemon=True)
        self._thread.start()

    def __call__(self, event) -> None:
        # The local bus stamps the time it hears it: one clock per ledger.
        with self._lock:
            self._pending.append(dataclasses.replace(event, ts=None))

    def flush(self) -> None:
        with self._lock:
            batch, self._pending = self._pending, []
        if self._send(batch):
            self.cancel.set()

    def _loop(self) -> None:
        while not self._stop.wait(FLUSH_S):
            self.flush()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.flush()


def run_remote_turn(spec: TurnSpec, base_bundle: bytes, send: Callable[[list], bool],
                    placement: tuple[str, str]) -> TurnReport:
    """``placement`` is (node id, node address) as the cluster names them;
    ``send`` delivers a batch of events and answers True once cancelled."""
    from paicli_tui.agent.budget import Budget
    from paicli_tui.agent.loop import Agent
    from paicli_tui.agent.registry import ToolRegistry
    from paicli_tui.events import EventBus, TaskPlaced
    from paicli_tui.llm.client import ChatClient
    from paicli_tui.llm.role_client import RoleClient
    from paicli_tui.policy.approval import AutoApprover, DenyApprover
    from paicli_tui.policy.redaction import Redactor
    from paicli_tui.prompting.compact import tool_view
    from paicli_tui.tools.trusted_urls import TrustedUrls

    settings = spec.settings
    redactor = Redactor.for_session(settings)
    bus = EventBus(spec.session_id, redactor=redactor)
    cancel = threading.Event()
    batcher = _Batcher(send, cancel)
    bus.subscribe(batcher)
    node_id, address = placement
    bus.publish(TaskPlaced(spec.agent, spec.task_id, "ray", node_id, address, os.getpid(), spec.attempt))
    scratch = Path(tempfile.mkdtemp(prefix=f"paicli-{spec.task_id}-"))
    try:
        problem = settings.resolved().problem()
        if problem:  # the key is the cluster's to give its workers
            return TurnReport("failed", "", f"on the Ray node {address}: {problem}", list(spec.messages), (),
                              "", "", None, node_id, address)
        base = scratch_checkout(scratch, base_bundle, spec.excludes)
        client = ChatClient.from_settings(settings, session_id=spec.session_id, bus=bus)
        role_client = RoleClient(client, **spec.client_options)
        limits = {name: getattr(settings, name) for name in ("max_turns", "max_tokens", "max_seconds", "max_cost")}
        limits["price_of"] = spec.price_of
        agent = Agent(spec.agent, client=role_client, system_prompt="",
                      registry=ToolRegistry(scratch, settings, redactor=redactor), bus=bus,
                      approver=AutoApprover() if spec.auto_approve else DenyApprover(),
                      approval_mode=spec.approval_mode, budget=Budget(**limits),
                      max_history_chars=spec.max_history_chars,
                      tool_view=tool_view(frozenset(spec.offered_tools)) if spec.offered_tools is not None else None,
                      context_chars=(lambda: spec.context_chars) if spec.context_chars else None)
        agent.messages = list(spec.messages)
        trusted = TrustedUrls(spec.user_urls, spec.inherited_urls)
        started = time.monotonic()
        outcome = agent.run_turn(spec.text, cancel=cancel, trusted_urls=trusted)
        result = scratch_commit(scratch, base)
        bundle = pack(Git(cwd=scratch), result, prerequisite=base) if result != base else None
        return TurnReport(outcome.status, outcome.text, outcome.reason, agent.messages, trusted.found_urls,
                          base, result, bundle, node_id, address, outcome.usage,
                          role_client.truncated_at(), {"seconds": time.monotonic() - started})
    finally:
        batcher.close()
        shutil.rmtree(scratch, ignore_errors=True)

