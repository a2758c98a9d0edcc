"""One interactive session: the facade the TUI and the headless runner drive.

A session owns the bus, the ledger, the model client, the tool registry and
the ReAct conversation. Each submitted input runs as one job on the session's
own engine thread; plan and team runs start their own worker pools. Nothing
here touches the UI: everything observable is an event on ``bus``.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from paicli_tui.agent.budget import Budget, RunBudget
from paicli_tui.agent.evidence import EvidenceRecorder, honest
from paicli_tui.agent.loop import Agent
from paicli_tui.config.settings import Settings
from paicli_tui.events import (
    Event,
    EventBus,
    ModelResponse,
    RunCancelled,
    RunOutcomeRecorded,
    RunRequested,
    SessionStarted,
)
from paicli_tui.hooks.session_hooks import SessionHooks, with_hook_context
from paicli_tui.records.ledger import Ledger, new_session_id
from paicli_tui.policy.redaction import Redactor
from paicli_tui.llm.types import Usage
from paicli_tui.records.cost import cost_of
from paicli_tui.records.prices import model_price
from paicli_tui.policy.saved_grants import usable_saved_rules
from paicli_tui.session.grant_keeping import GrantKeeping
from paicli_tui.session.mode_and_model import ModeAndModel
from paicli_tui.session.port import (
    AgentTurn, ClearConversation, PlanRun, ProviderUnavailable, ResumeRun, RunKind, RunOutcome, SessionBusy,
    SessionCommand, TeamRun,
)
from paicli_tui.session.plan_runs import PlanAndTeamRuns
from paicli_tui.session.resuming import Resuming

if TYPE_CHECKING:
    from paicli_tui.executors import Executor
    from paicli_tui.plan.model import Plan
    from paicli_tui.plan.review import PlanReviewer
    from paicli_tui.policy.approval import Approver

#: Seconds closing waits for MCP servers to stop by themselves (stdin closed,
#: then SIGTERM) before they are killed: quitting must not wait on them.
MCP_CLOSE_S = 0.5

#: Budget settings recorded with each run (P-8: the report names them).
LIMIT_SETTINGS = ("max_turns", "max_tokens", "max_seconds", "run_max_turns", "run_max_tokens", "run_max_seconds",
                  "max_cost", "run_max_cost")


class Session(ModeAndModel, GrantKeeping, Resuming, PlanAndTeamRuns):
    def __init__(
        self,
        settings: Settings,
        workspace: Path,
        *,
        approver: "Approver | None" = None,
        plan_reviewer: "PlanReviewer | None" = None,
        transport=None,
        session_id: str | None = None,
        trust_workspace_mcp: bool = False,
        trust_workspace_hooks: bool = False,
        executor: "Executor | None" = None,
    ) -> None:
        """``trust_workspace_mcp``: start the workspace .mcp.json's servers
        this time without asking (``paicli run --trust-mcp``); ``trust_workspace_hooks``: its hooks (--trust-hooks).
        ``executor`` runs /plan tasks and /team steps (connected by the caller,
        which owns the one-line error when a cluster is unreachable, and
        closes it)."""
        from paicli_tui.llm.client import ChatClient
        from paicli_tui.prompting.assembler import PromptAssembler
        from paicli_tui.policy.approval import DenyApprover
        from paicli_tui.agent.registry import ToolRegistry

        self.settings = settings
        self.workspace = workspace
        self.session_id = session_id or new_session_id()
        #: Problems found while starting that the person should read (one line each).
        self.warnings: list[str] = []
        from paicli_tui.session import mcp_wiring
        mcp_config = mcp_wiring.read_config(settings, workspace, self.warnings)
        self.redactor = mcp_wiring.with_server_secrets(Redactor.for_session(settings), mcp_config)
        self.bus = EventBus(self.session_id, redactor=self.redactor)
        provider = settings.resolved()
        from paicli_tui.records.killed import note_killed_runs

        note_killed_runs(workspace)  # a run a killed process left gets its cause before anything else is written
        self.ledger = Ledger(self.bus, redact=self.redactor.secrets)
        self.client = ChatClient.from_settings(settings, session_id=self.session_id, bus=self.bus, transport=transport)
        #: A transport handed in answers requests itself (the demo, a scripted model): no server, no key.
        self._answers_in_process = transport is not None
        self.model_label = self.client.model_label
        self.assembler = PromptAssembler(workspace)
        risk_checker = None
        if settings.risk_model_check:
            from paicli_tui.policy.model_risk import ModelRiskChecker

            risk_checker = ModelRiskChecker(self.client, self.assembler.prompt_file("risk-check.md"))
        self.registry = ToolRegistry(workspace, settings, risk_checker=risk_checker, redactor=self.redactor,
                                     saved_rules=usable_saved_rules(workspace, self.warnings))
        if self.registry.sandbox.warning:
            self.warnings.append(self.registry.sandbox.warning)
        self.checkpoints = self._checkpoints(settings, workspace)
        from paicli_tui.knowledge.service import Knowledge

        #: Memory and the code index, shared by every agent with tools (P-9.4).
        self.knowledge = Knowledge(workspace, settings=settings, bus=self.bus, redactor=self.redactor,
                                   recall_limit=settings.memory_recall)
        from paicli_tui.knowledge.tools import knowledge_tools

        for tool in knowledge_tools(self.knowledge):
            self.registry.register(tool)
        self._runs = 0
        self.approver = approver or DenyApprover()
        from paicli_tui.executors import LocalExecutor
        from paicli_tui.policy.approval import AutoApprover

        self.executor = executor or LocalExecutor()
        if hasattr(self.executor, "for_session"):
            self.executor.for_session(settings, self.session_id, auto_approve=isinstance(self.approver, AutoApprover))
        self.plan_reviewer = plan_reviewer
        self._approval_mode = settings.approval_mode
        self.usage = Usage()
        self._run_budget = RunBudget()
        self._usage_lock = threading.Lock()
        self.bus.subscribe(self._count_usage)
        self.evidence = EvidenceRecorder()
        self.bus.subscribe(self.evidence)
        self._jobs = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paicli-session")
        self._cancel = threading.Event()
        self._busy = threading.Lock()
        self._react: Agent | None = None
        self._current: "Future[RunOutcome] | None" = None
        self._executor = None  # the /plan run in progress, for cancel_task
        self._orchestrator = None  # the /team run in progress
        from paicli_tui.session.run_isolation import RunIsolation

        #: Each /plan task and /team step in its own tree (docs/isolation.md).
        self.isolation = RunIsolation(workspace, settings, self.bus, self.checkpoints)
        self.bus.publish(
            SessionStarted("session", self._approval_mode, "", self.model_label, provider.base_url, str(workspace))
        )
        self.session_hooks = SessionHooks.for_session(settings, workspace, self.session_id, self.bus, self.redactor,
                                                      self.warnings, trust_workspace=trust_workspace_hooks,
                                                      resumed=session_id is not None, model=lambda: self.client.model,
                                                      mode=lambda: self._approval_mode)
        self.hooks = self.registry.hooks = self.session_hooks.runner
        trusted = mcp_wiring.workspace_trusted(mcp_config, workspace, self.warnings, flag=trust_workspace_mcp)
        #: The MCP servers (P-9.1), starting in the background; None when none is configured.
        self.mcp = mcp_wiring.start_servers(mcp_config, settings, self.bus, workspace, self.registry, trusted=trusted,
                                            flag=trust_workspace_mcp)

    # -- state -------------------------------------------------------------------

    #: A live session takes input and calls the model (the replay does neither).
    is_replay = False
    read_only_reason = ""
    intro = ""

    @property
    def model(self) -> str:
        return self.client.model

    @property
    def user_skills_dir(self) -> Path | None:
        return self.assembler.user_skills_dir

    def _checkpoints(self, settings: Settings, workspace: Path):
        """Undo (P-9.3): the registry checkpoints every file a tool changes;
        load_skill (P-9.2) and revert_turn join the tools."""
        from paicli_tui.checkpoints.service import Checkpoints
        from paicli_tui.tools.revert_turn import RevertTurn
        from paicli_tui.tools.skill import LoadSkill

        checkpoints = Checkpoints(workspace, self.session_id, bus=self.bus,
                                  max_bytes=int(settings.checkpoint_max_mb * 2**20), redact=self.redactor.at_rest)
        self.registry.checkpoints = checkpoints.recorder
        if self.assembler.skills():
            self.registry.add_tool(LoadSkill(self.registry.workspace, self.assembler.skills))
        self.registry.add_tool(RevertTurn(self.registry.workspace, checkpoints))
        return checkpoints

    def skills(self):
        """The skills the prompts index and load_skill loads (``/skills``)."""
        return self.assembler.skills()

    @property
    def busy(self) -> bool:
        return self._busy.locked()

    def _count_usage(self, event: Event) -> None:
        if isinstance(event, ModelResponse):
            with self._usage_lock:
                self.usage = self.usage + Usage.of_response(event)
            self._run_budget.charge(event.prompt_tokens + event.completion_tokens,
                                    self._run_budget.price_of(event) if self._run_budget.price_of else 0.0)

    # -- input -------------------------------------------------------------------

    def submit(self, command: SessionCommand) -> "Future[RunOutcome]":
        """Run one command on the engine thread (SessionBusy while one runs)."""
        match command:
            case AgentTurn(text=text, attachments=attachments):
                return self.start_react(text, attachments)
            case PlanRun(goal=goal, plan=plan):
                return self.start_plan(goal, plan)
            case TeamRun(goal=goal, plan=plan):
                return self.start_team(goal, plan)
            case ClearConversation():
                return self._start(self._clear_job)
            case ResumeRun(state=state, plan=plan, edit=edit):
                return self._start(self.run_resume, state, plan, edit)
        raise TypeError(f"not a session command: {command!r}")

    def start_react(self, text: str, attachments: tuple[str, ...] = ()) -> "Future[RunOutcome]":
        return self._start(self.run_react, text, tuple(attachments))

    def start_plan(self, goal: str, plan: "Plan | None" = None) -> "Future[RunOutcome]":
        return self._start(self.run_plan, goal, plan)

    def start_team(self, goal: str, plan: "Plan | None" = None) -> "Future[RunOutcome]":
        return self._start(self.run_team, goal, plan)

    def provider_problem(self) -> str | None:
        """Why a model request cannot work right now, as one line with the fix."""
        if self._answers_in_process or self.settings.provider == "demo":
            return None
        problem = self.settings.resolved().problem()
        return f"Not sent: {problem}" if problem else None

    def _start(self, job, *args) -> "Future[RunOutcome]":
        if job != self._clear_job and (problem := self.provider_problem()):
            raise ProviderUnavailable(problem)
        if not self._busy.acquire(blocking=False):
            raise SessionBusy("still working on the previous request (Esc cancels it)")
        self._cancel = threading.Event()

        def run() -> RunOutcome:
            try:
                outcome = self.redactor.scrub(job(*args))  # the final report and the UI show it
                changed = self.session_hooks.at_stop(outcome.kind, outcome.ok, outcome.status, outcome.text,
                                                     self._cancel, self._react if outcome.kind == "react" else None)
                outcome = outcome if changed is None else self.redactor.scrub(RunOutcome(outcome.kind, *changed))
                self._finish_checkpoints()
                outcome = honest(outcome, self.evidence.current())
                if outcome.kind != "command":
                    # Facts agents saved are kept before the outcome is recorded (P-9.4).
                    # In ask mode each fact had the person's yes; otherwise they wait for it.
                    self.knowledge.end_run(cancelled=outcome.status.lower() == "cancelled",
                                           hold=self._approval_mode != "ask")
                    self.bus.publish(RunOutcomeRecorded("session", outcome.kind, outcome.ok, outcome.status, outcome.text))
                return outcome
            finally:
                self._finish_checkpoints()  # a run that raised still closes its checkpoints
                self.end_resumed_ledger()
                self.knowledge.end_run(cancelled=True, reason="the run stopped with an error")  # no-op once ended
                self.bus.mode = "react"
                self._busy.release()

        self._current = self._jobs.submit(run)
        return self._current

    def _finish_checkpoints(self) -> None:
        changes = self.checkpoints.finish_run()
        if changes is not None:
            self.bus.publish(changes)

    def cancel(self, reason: str = "cancelled by the user") -> None:
        """Stop the current run as Esc does; ``reason`` is recorded (e.g.
        "SIGTERM received"). Safe from any thread, but not from inside a
        signal handler: it publishes an event."""
        if self.busy and not self._cancel.is_set():
            self.bus.publish(RunCancelled("session", reason))
        self._cancel.set()

    def cancel_task(self, task_id: str) -> bool:
        """Interrupt one running task or step; its dependents are skipped and
        the rest of the run goes on. False when nothing by that id runs."""
        executor = self._executor or getattr(self._orchestrator, "executor", None)
        if executor is None:
            return False
        return executor.cancel_task(task_id)

    def clear(self) -> None:
        """Forget the ReAct conversation (a new agent, a new system prompt)."""
        if self._react is not None:
            self._react.clear_history()
        self._react = None

    def restore_history(self, messages: list[dict]) -> None:
        self._react = self._new_agent("react", "react")
        self._react.messages.extend(messages)

    def _clear_job(self) -> RunOutcome:
        self.clear()
        return RunOutcome("command", True, "final", "conversation cleared")

    def close(self, timeout: float = 10.0, *, reason: str = "cancelled by the user") -> None:
        """Cancel what runs and wait for it at most ``timeout`` seconds: a job
        stuck somewhere uninterruptible must not keep the program open. Then
        kill every command process group still alive: background processes
        commands left behind, and a command whose thread is stuck."""
        from paicli_tui.tools.process import kill_live_groups

        self.cancel(reason)
        self._jobs.shutdown(wait=False, cancel_futures=True)
        if self._current is not None:
            try:
                self._current.result(timeout=timeout)
            except Exception:  # noqa: BLE001 - closing: the job's own error was reported already
                pass
        if self.mcp is not None:
            # A short bound: what has not stopped by then is killed with the command groups.
            self.mcp.close(min(timeout, MCP_CLOSE_S))
        kill_live_groups()
        self.client.close()
        self.knowledge.close()
        self.ledger.close()

    # -- runs --------------------------------------------------------------------

    def _budget(self) -> Budget:
        s = self.settings
        return Budget(max_turns=s.max_turns, max_tokens=s.max_tokens, max_seconds=s.max_seconds, max_cost=s.max_cost,
                      run=self._run_budget)

    def _begin_run(self, kind: RunKind, goal: str, attachments: tuple[dict, ...] = ()) -> None:
        """Stamp the mode, start the run's shared budget and record the run
        with its limits and the model's price (the ledger must be enough to
        report the run later)."""
        s = self.settings
        self.bus.mode = kind
        self._checkpoint_run = self.checkpoints.begin_run(kind, goal)
        limits = {name: getattr(s, name) for name in LIMIT_SETTINGS if getattr(s, name) is not None}
        model = self.client.model
        price = model_price(model, s.prices, s.provider)
        self._run_budget = RunBudget(s.run_max_turns, s.run_max_tokens, s.run_max_seconds, s.run_max_cost,
                                     price_of=(lambda usage: cost_of(usage, price)) if price is not None else None)
        gate = getattr(self.client, "gate", None)
        self._run_budget.call_seconds = gate.typical_s if gate is not None else None
        prices = {model: price.model_dump() if hasattr(price, "model_dump") else dict(price)} if price is not None else {}
        self.bus.publish(RunRequested("session", kind, goal, limits, prices, attachments))
        from paicli_tui.session.mcp_wiring import prepare_run

        prepare_run(self.mcp, self.assembler, self.bus)

        self._runs += 1
        self.knowledge.begin_run(f"{self.session_id}/{self._runs}")

    def _new_agent(self, name: str, role: str, *, task_type: str | None = None, tools: bool = True) -> Agent:
        from paicli_tui.llm.role_client import RoleClient

        from paicli_tui.agent.profile import agent_profile

        profile = agent_profile(self.settings, self.assembler, self.client.base_url, role,
                                approval_mode=self._approval_mode, task_type=task_type)
        limit = self.settings.tool_loop_max_tokens()
        return Agent(
            name,
            client=RoleClient(self.client, max_tokens=limit, tool_max_tokens=limit),
            **profile,
            registry=self.registry if tools else None,
            bus=self.bus,
            approver=self.approver,
            approval_mode=self._approval_mode,
            budget=self._budget(),
            max_history_chars=self.settings.max_history_chars,
        )

    def run_react(self, text: str, attachments: tuple[str, ...] = ()) -> RunOutcome:
        from paicli_tui.session.attachments import read_attachments, with_attachments
        from paicli_tui.prompting.assembler import with_turn_context
        from paicli_tui.tools.trusted_urls import TrustedUrls

        attached = read_attachments(self.workspace, attachments)
        self._begin_run("react", text, tuple(item.record() for item in attached))
        if not text:
            return RunOutcome("react", False, "failed", "nothing to do: the input was empty")
        gate = self.session_hooks.before_prompt("react", text, attachments, cancel=self._cancel)
        if gate.blocked:
            return RunOutcome("react", False, "blocked", f"blocked by hook: {gate.reason}")
        if self._react is None:
            self._react = self._new_agent("react", "react")
        self._react.budget.run = self._run_budget
        # Known secrets never reach the model from a file, attached or read by a tool.
        attached = [replace(item, text=self.redactor.text(item.text)) for item in attached]
        message = text
        if self.mcp is not None:  # attached resources are data: their URLs are not typed by the person
            from paicli_tui.mcp.mentions import attach_mentions

            message = attach_mentions(text, self.mcp, self.bus, cancel=self._cancel)
        message = with_hook_context(with_attachments(message, attached), gate.context)
        message = self.knowledge.recall(message, text, "react")
        outcome = self._react.run_turn(
            with_turn_context(message, approval_mode=self._approval_mode), cancel=self._cancel,
            trusted_urls=TrustedUrls.from_user_text(text),
        )
        text_out = outcome.text if outcome.status != "failed" else outcome.reason
        return RunOutcome("react", outcome.status == "final", outcome.status, text_out)

    def _open_run(self, kind: RunKind, goal: str, plan: "Plan | None") -> "tuple[str, RunOutcome | None]":
        """Record the run and let UserPromptSubmit hooks see the goal: the goal
        with any context they add, or the outcome that ends the run here."""
        self._begin_run(kind, goal)
        if not goal and plan is None:
            return goal, RunOutcome(kind, False, "FAILED", f"usage: /{kind} GOAL")
        gate = self.session_hooks.before_prompt(kind, goal, cancel=self._cancel)
        if gate.blocked:
            return goal, RunOutcome(kind, False, "FAILED", f"blocked by hook: {gate.reason}")
        return with_hook_context(goal, gate.context), None
