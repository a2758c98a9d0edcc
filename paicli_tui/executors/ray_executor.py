"""The Ray executor: each turn of a task's agent is one remote Ray task.

Out: the commit the tree holds now, as a git bundle through the object
store, and the agent's history and settings (never the API key: the
workers have it as an environment variable of their own). Back: batched events through a
relay actor while the turn runs, then its commit as a thin bundle, its
history and its outcome; the task's tree is reset to that commit, so merge,
review and the next turn go on as if it had run here. A lost worker is
retried once, on another node when the cluster has one."""

from __future__ import annotations

import itertools
import threading
from typing import TYPE_CHECKING, Any

from paicli_tui.agent.loop import AgentOutcome
from paicli_tui.events import AgentNote
from paicli_tui.executors.base import TurnJob
from paicli_tui.executors.bundles import pack, take_result, tree_state
from paicli_tui.executors.local import LocalExecutor
from paicli_tui.executors.ray_cluster import connect
from paicli_tui.executors.remote_turn import TurnReport, TurnSpec

if TYPE_CHECKING:
    from paicli_tui.config.settings import Settings
    from paicli_tui.events import Event

#: A turn whose worker died is started once more, then it fails.
RETRIES = 1
_LOST = ("WorkerCrashedError", "NodeDiedError", "ObjectLostError", "OwnerDiedError", "LocalRayletDiedError",
         "RaySystemError", "ObjectReconstructionFailedError")


class RayExecutor:
    name = "ray"

    def __init__(self, ray: Any, where: str) -> None:
        self.ray = ray
        self.where = where
        self.settings: "Settings | None" = None
        self.session_id = "session"
        self.auto_approve = False
        self._relay = None
        self._relay_lock = threading.Lock()
        self._keys = itertools.count(1)
        self._local = LocalExecutor()

    @classmethod
    def connect(cls, address: str | None, secrets: dict[str, str] | None = None) -> "RayExecutor":
        """``secrets`` (name → value) go into a local cluster's environment
        as it starts, so its workers have them as environment variables."""
        ray, where = connect(address, secrets or {})
        return cls(ray, where)

    def for_session(self, settings: "Settings", session_id: str, *, auto_approve: bool) -> None:
        """The settings every remote agent is built from (the key stays out of them)."""
        self.settings = settings
        self.session_id = session_id
        self.auto_approve = auto_approve

    def start(self, job: TurnJob, cancel: threading.Event):
        if job.tree is None or job.run is None or self.settings is None:
            # Nothing to ship without a task tree (isolation off): it runs here.
            return self._local.start(job, cancel)
        return RayTurn(self, job)

    def relay(self):
        with self._relay_lock:
            if self._relay is None:
                from paicli_tui.executors.ray_remote import EventRelay

                self._relay = EventRelay.remote()
            return self._relay

    def close(self) -> None:
        if self.ray.is_initialized():
            self.ray.shutdown()


class RayTurn:
    """One turn on the cluster: start, stream, cancel, collect."""

    def __init__(self, executor: RayExecutor, job: TurnJob) -> None:
        from paicli_tui.executors.ray_remote import remote_turn

        self.executor = executor
        self.job = job
        self.ray = executor.ray
        self._remote = remote_turn
        run, tree = job.run, job.tree
        assert run is not None and tree is not None
        with run.repo.lock:
            state = tree_state(run, tree)
            bundle = pack(run.repo.git(), state)
        self.base = state
        self._bundle = self.ray.put(bundle)
        self.spec = self._spec(state)
        self._pending: list[Event] = []
        self._report: TurnReport | None = None
        self._failure = ""
        self._cancelled = False
        self._cancel_asked = False
        self._tries = 0
        self._nodes: list[str] = []
        self._submit(avoid=None)

    def _spec(self, state: str) -> TurnSpec:
        job, executor = self.job, self.executor
        agent = job.agent
        client = agent.client
        options = {name: getattr(client, name, None)
                   for name in ("max_tokens", "tool_max_tokens", "response_format", "final_format")}
        trusted = job.trusted_urls
        excludes = (job.run.repo.git_dir / "info" / "exclude")
        return TurnSpec(
            key=f"{executor.session_id}/{job.task_id}/{next(executor._keys)}", task_id=job.task_id, agent=agent.name,
            session_id=executor.session_id, settings=executor.settings, messages=list(agent.messages),
            text=job.text, client_options=options, approval_mode=agent.approval_mode,
            auto_approve=executor.auto_approve, max_history_chars=agent.max_history_chars,
            user_urls=trusted.user_urls if trusted is not None else (),
            inherited_urls=trusted.inherited_urls if trusted is not None else (),
            excludes=excludes.read_text() if excludes.exists() else "", attempt=job.tree.number,
            offered_tools=_offered_names(agent), context_chars=agent.context_chars() if agent.context_chars else None,
            price_of=agent.budget.pricing())

    def _submit(self, avoid: str | None) -> None:
        self._tries += 1
        # No runtime_env for the key: Ray's runtime-env agent logs its
        # variables. The key is in the workers' own environment instead.
        options: dict[str, Any] = {}
        if avoid is not None:
            other = next((n["NodeID"] for n in self.ray.nodes() if n.get("Alive") and n["NodeID"] != avoid), None)
            if other is not None:
                from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

                options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(other, soft=True)
        self._ref = self._remote.options(**options).remote(self.spec, self._bundle, self.executor.relay())

    # --- the RunningTurn protocol ---------------------------------------------------

    def events(self, wait: float) -> "list[Event]":
        if wait > 0 and self._report is None and not self._failure:
            self.ray.wait([self._ref], timeout=wait)
        taken = self.ray.get(self.executor.relay().take.remote(self.spec.key))
        for event in taken:
            if getattr(event, "name", "") == "placed":
                self._nodes.append(event.node_id)
        out, self._pending = self._pending + taken, []
        return out

    def finished(self) -> bool:
        if self._report is not None or self._failure or self._cancelled:
            return True
        ready, _ = self.ray.wait([self._ref], timeout=0)
        if not ready:
            return False
        try:
            self._report = self.ray.get(self._ref)
        except Exception as exc:  # noqa: BLE001 — sorted below into cancel, a lost worker or the task's own error
            kind = type(exc).__name__
            if self._cancel_asked or isinstance(exc, self.ray.exceptions.TaskCancelledError):
                self._cancelled = True
            elif kind in _LOST or any(name in kind for name in _LOST):
                return self._lost(kind)
            else:
                self._failure = _one_line(getattr(exc, "cause", None) or exc)
        return True

    def _lost(self, kind: str) -> bool:
        node = self._nodes[-1] if self._nodes else ""
        where = f" on node {node[:12]}" if node else ""
        if self._tries <= RETRIES:
            self._pending.append(AgentNote(self.job.agent.name, f"{self.job.task_id}: its Ray worker died{where} "
                                           f"({kind}); running it once more elsewhere"))
            self._submit(avoid=node or None)
            return False
        self._failure = f"its Ray worker died{where} ({kind}), also on the retry"
        return True

    def cancel(self) -> None:
        # The relay tells the remote agent to stop its model call (the way a
        # local cancel does); ray.cancel then interrupts whatever is left.
        self._cancel_asked = True
        self.executor.relay().cancel.remote(self.spec.key)
        self.ray.cancel(self._ref)

    def result(self) -> AgentOutcome:
        report = self._report
        if report is None:
            if self._cancelled:
                return AgentOutcome("cancelled", "", "cancelled")
            return AgentOutcome("failed", "", self._failure or "the Ray task ended without a result")
        agent, job = self.job.agent, self.job
        agent.messages[:] = report.messages
        if report.usage is not None:
            agent.usage = agent.usage + report.usage
        if job.trusted_urls is not None and report.found_urls:
            job.trusted_urls.add_search_results(report.found_urls)
        assert job.run is not None and job.tree is not None
        if report.result:  # "" when the turn failed before it checked the base out
            with job.run.repo.lock:
                take_result(job.run, job.tree, report.bundle, report.result)
        return AgentOutcome(report.status, report.text, report.reason, report.usage or agent.usage)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[-1] if text else type(exc).__name__)[:300]


def _offered_names(agent) -> tuple[str, ...] | None:
    """The tools the local agent is offered (the compact profile), so the
    remote one is offered the same; None when it is offered every tool."""
    if agent.tool_view is None or agent.registry is None:
        return None
    return tuple(sorted((s.get("function") or s)["name"] for s in agent.tool_view(agent.registry.schemas())))
