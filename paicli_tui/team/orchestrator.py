"""Team mode (P-5): a planner makes a `step_` plan, a pool of workers runs it
through the plan engine's scheduler, and a fail-closed reviewer judges every
step. All sub-agents share one client, one tool registry and one bus; each
has its own history."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from paicli_tui.agent.budget import Budget, RunBudget
from paicli_tui.agent.loop import Agent
from paicli_tui.agent.profile import agent_profile
from paicli_tui.events import EventBus
from paicli_tui.llm.role_client import RoleClient
from paicli_tui.llm.structured_output import response_format
from paicli_tui.plan.executor import ExecutionReport, PlanExecutor
from paicli_tui.plan.model import Plan
from paicli_tui.plan.planner import Planner, planner_options
from paicli_tui.team.messages import AgentRole
from paicli_tui.team.reply_schemas import REVIEW_VERDICT_SCHEMA, WORKER_REPORT_SCHEMA
from paicli_tui.team.step_runner import StepRunner
from paicli_tui.team.subagent import ORCHESTRATOR, SubAgent

if TYPE_CHECKING:
    from paicli_tui.config.settings import Settings
    from paicli_tui.executors import Executor
    from paicli_tui.llm.client import ChatClient
    from paicli_tui.prompting.assembler import PromptAssembler
    from paicli_tui.policy.approval import Approver
    from paicli_tui.agent.registry import ToolRegistry
    from paicli_tui.tools.trusted_urls import TrustedUrls


@dataclass(frozen=True)
class Resumption:
    """How an interrupted run goes on: its plan version, the replans made,
    and per interrupted step the attempt it had reached and its feedback."""

    version: int
    replans: int = 0
    attempts: dict[str, tuple[int, str]] = field(default_factory=dict)


def worker_names(count: int) -> list[str]:
    return [f"worker-{i}" for i in range(1, count + 1)]


class TeamOrchestrator:
    def __init__(
        self,
        *,
        client: "ChatClient",
        registry: "ToolRegistry",
        assembler: "PromptAssembler",
        bus: EventBus,
        approver: "Approver | None",
        settings: "Settings",
        approval_mode: str = "auto",
        run_budget: RunBudget | None = None,
        recall: Callable[[str, str, str], str] | None = None,
    ) -> None:
        self.client = client
        #: Puts saved facts into a worker's first user message (P-9.4).
        self.recall = recall
        self.run_budget = run_budget
        self.registry = registry
        self.assembler = assembler
        self.bus = bus
        self.approver = approver
        self.settings = settings
        self.approval_mode = approval_mode
        self.planner = Planner(client, assembler, agent="planner", role="team-planner", id_prefix="step", bus=bus,
                               deadline=run_budget.deadline if run_budget is not None else None,
                               **planner_options(settings))
        kind = settings.response_format_kind()
        #: Sent on tool-less worker repairs only: a worker's tool loop cannot
        #: be constrained to a schema (see llm/role_client.py).
        self.report_format = response_format(kind, "paicli_worker_report", WORKER_REPORT_SCHEMA)
        self.verdict_format = response_format(kind, "paicli_review_verdict", REVIEW_VERDICT_SCHEMA)
        self._reviewers: dict[str, SubAgent] = {}
        self._reviewers_lock = threading.Lock()

    def plan(self, goal: str, cancel: threading.Event | None = None) -> Plan:
        """The team plan (`step_` ids, P-5.0). Raises PlanError for a reply
        that fails validation and ModelError when the call itself fails."""
        return self.planner.create(goal, cancel=cancel)

    def run(
        self,
        goal: str,
        plan: Plan,
        cancel: threading.Event,
        trusted_urls: "TrustedUrls | None" = None,
        isolation: "TaskIsolation | None" = None,
        resumed: "Resumption | None" = None,
        executor: "Executor | None" = None,
    ) -> ExecutionReport:
        """Run every step on the worker pool; parallelism = worker count,
        no replanning (a failed or blocked step skips its dependents only).
        With ``isolation`` each attempt works in its own tree and only
        approved work is merged back (paicli_tui.workspace). ``resumed``
        goes on with an interrupted run: ``plan`` holds its kept statuses."""
        from paicli_tui.tools.trusted_urls import TrustedUrls

        names = worker_names(self.settings.workers)
        runner = StepRunner(
            goal=goal,
            workers={name: SubAgent(AgentRole.WORKER, name, self._agent(name, "team-worker", tools=True)) for name in names},
            reviewer=self._reviewer,
            bus=self.bus,
            trusted_urls=trusted_urls if trusted_urls is not None else TrustedUrls(),
            repairs=self.settings.report_repairs,
            report_format=self.report_format,
            recall=self.recall,
            isolation=isolation,
            hooks=self.registry.hooks,
            resumed_attempts=resumed.attempts if resumed is not None else None,
            executor=executor,
        )
        executor = PlanExecutor(
            plan,
            runner,
            goal=goal,
            bus=self.bus,
            policy=self.settings.schedule,
            parallelism=len(names),
            workers=names,
            replanner=None,
            actor=ORCHESTRATOR,
            kind="team",
            version=resumed.version if resumed is not None else max(self.planner.version, 1),
            run_limit=self.run_budget.dispatch_limit if self.run_budget is not None else None,
            replans=resumed.replans if resumed is not None else 0,
            resumed=resumed is not None,
            where=executor.where if executor is not None else "local",
        )
        self.executor = executor  # lets the session cancel a single step
        if isolation is not None:
            isolation.hold = executor.hold
        return executor.run(cancel)

    def _reviewer(self, name: str) -> SubAgent:
        """``reviewer`` or ``reviewer-step_K``, made on first use; tool-less."""
        with self._reviewers_lock:
            if name not in self._reviewers:
                agent = self._agent(name, "team-reviewer", tools=False)
                self._reviewers[name] = SubAgent(AgentRole.REVIEWER, name, agent)
            return self._reviewers[name]

    def _agent(self, name: str, role: str, *, tools: bool) -> Agent:
        settings = self.settings
        # A reviewer's every call is its verdict; a worker's tool-less calls
        # are its budget-stop summary and its report repairs: reports, so a
        # worker stopped by a limit still reports in the form the runner reads.
        client = RoleClient(
            self.client, max_tokens=settings.report_max_tokens, tool_max_tokens=settings.tool_loop_max_tokens(),
            response_format=self.report_format if tools else self.verdict_format,
            final_format=self.report_format if tools else None,
        )
        return Agent(
            name,
            client=client,
            **agent_profile(settings, self.assembler, self.client.base_url, role, approval_mode=self.approval_mode),
            registry=self.registry if tools else None,
            bus=self.bus,
            approver=self.approver,
            approval_mode=self.approval_mode,
            budget=Budget(
                max_turns=settings.max_turns, max_tokens=settings.max_tokens, max_seconds=settings.max_seconds,
                max_cost=settings.max_cost, run=self.run_budget,
            ),
            max_history_chars=settings.max_history_chars,
        )
