"""Resuming an interrupted /plan or /team run (the session's part).

The run goes on in the same ledger run: no new planning, no new review
(unless the person edited the plan first), completed work kept with its
merged changes, interrupted tasks run again from their base, budgets and
retry and replan counts continued from what the ledger says was used."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from paicli_tui.agent.budget import RunBudget
from paicli_tui.events import AgentNote, PlanProposed, RunResumed
from paicli_tui.plan.model import Plan, TaskStatus
from paicli_tui.session.port import RunOutcome

if TYPE_CHECKING:
    from paicli_tui.records.resume_state import ResumeState
    from paicli_tui.workspace.resolver import TaskIsolation

_KEPT_AS_IS = ("COMPLETED", "FAILED", "BLOCKED")


def resumed_plan(state: "ResumeState", edited: Plan | None = None) -> tuple[Plan, list[str], list[str]]:
    """The plan the resumed run executes, with (kept, redone) task ids. A
    completed task keeps its result; a failed or blocked one stays so (what
    is downstream of it is not run); the rest wait to run. In an edited plan
    a finished task is kept only where it is unchanged."""
    from paicli_tui.plan.parser import plan_from_dict

    prefix = "step" if state.kind == "team" else "task"
    plan = edited if edited is not None else plan_from_dict(state.plan, prefix, renumber=False)
    original = {t.get("id"): t for t in state.plan.get("tasks") or state.plan.get("steps") or []}
    must_rerun = set(state.unmerged_kept())
    kept: list[str] = []
    for task in plan.tasks:
        known = state.tasks.get(task.id)
        task.status, task.result, task.error = TaskStatus.PENDING, "", ""
        if known is None or known.status not in _KEPT_AS_IS or task.id in must_rerun:
            continue
        if edited is not None and task.to_dict() != _entry(original.get(task.id)):
            continue
        task.status, task.result, task.error = TaskStatus(known.status), known.result, known.error
        task.notes = list(known.notes)
        if known.status == "COMPLETED":
            kept.append(task.id)
    redone = [t for t in state.redone if t in plan and plan.task(t).status is TaskStatus.PENDING]
    redone += [t for t in must_rerun if t in plan and t not in redone]
    return plan, kept, redone


def _entry(data: dict | None) -> dict | None:
    if data is None:
        return None
    return {"id": data.get("id"), "description": data.get("description"), "type": data.get("type", "ANALYSIS"),
            "dependencies": list(data.get("dependencies") or [])}


def continued_budget(state: "ResumeState", turns: int | None, tokens: int | None, seconds: float | None) -> RunBudget:
    """The run's budget with what it spent before already charged."""
    budget = RunBudget(turns, tokens, seconds)
    budget.turns, budget.tokens = state.turns, state.tokens
    budget.started = time.monotonic() - state.seconds
    return budget


class Resuming:
    """Mixed into the live session: ``run_resume`` is the engine job."""

    _resumed_ledger = None
    #: `paicli resume` chose the executor itself (its flags may override the record).
    follow_recorded_executor = True

    def run_resume(self, state: "ResumeState", edited: Plan | None = None, edit: bool = False) -> RunOutcome:
        # The run goes on where it ran (as `paicli resume` does); the
        # session's own executor is back for the next run.
        self._write_to(state)
        recorded = self._recorded_executor(state) if self.follow_recorded_executor else None
        if recorded is None:
            return self._run_resume(state, edited, edit)
        own, self.executor = self.executor, recorded
        try:
            return self._run_resume(state, edited, edit)
        finally:
            self.executor = own
            recorded.close()

    def _recorded_executor(self, state: "ResumeState"):
        """An executor for where the run was going on, when that is not
        where this session runs tasks; None to use the session's. A cluster
        that cannot be reached is one note, and the run goes on here."""
        from paicli_tui.executors import ExecutorUnavailable, LocalExecutor, open_executor, recorded_choice

        if not state.executor:
            return None
        kind, address = recorded_choice(state.executor)
        here = self.executor.where
        if kind == "local":
            return None if here == "local" else LocalExecutor()
        if here.startswith("ray") and (address is None or here == f"ray @ {address}"):
            return None
        chosen = self.settings.executor.model_copy(update={"kind": kind, "ray_address": address})
        try:
            executor = open_executor(self.settings.model_copy(update={"executor": chosen}))
        except ExecutorUnavailable as exc:
            self.bus.publish(AgentNote("session", f"{exc} — the run's tasks ran on {state.executor}; they go on "
                                                  f"{here} now"))
            return None
        if hasattr(executor, "for_session"):
            from paicli_tui.policy.approval import AutoApprover

            executor.for_session(self.settings, self.session_id, auto_approve=isinstance(self.approver, AutoApprover))
        return executor

    def _run_resume(self, state: "ResumeState", edited: Plan | None, edit: bool) -> RunOutcome:
        from paicli_tui.tools.trusted_urls import TrustedUrls

        kind = state.kind
        s = self.settings
        if edit and edited is None and self.plan_reviewer is not None:
            reviewed = self._review_before_resume(state)
            if isinstance(reviewed, RunOutcome):
                return reviewed
            edited = reviewed
        self.bus.mode = kind
        self._checkpoint_run = self.checkpoints.begin_run(kind, state.goal)
        self._run_budget = continued_budget(state, s.run_max_turns, s.run_max_tokens, s.run_max_seconds)
        self._runs += 1
        self.knowledge.begin_run(f"{self.session_id}/{self._runs}")
        plan, kept, redone = resumed_plan(state, edited)
        version = state.version
        if edited is not None and edited.to_dict() != state.plan:
            version += 1
            self.bus.publish(PlanProposed("session", version, "edit", state.goal, plan.to_dict()))
        isolation, integration, edited_files, problem = self._resume_isolation(state, kept)
        if problem:
            return RunOutcome(kind, False, "FAILED", f"cannot resume: {problem}")
        if edited_files:
            self.bus.publish(AgentNote("session", "changed in the workspace since the run stopped (kept, merged at "
                                                  "the end): " + ", ".join(edited_files)))
        self.bus.publish(RunResumed(
            "session", state.stopped, tuple(kept), tuple(redone), version, plan.to_dict(),
            {t.id: t.status.value for t in plan.tasks}, state.replans, integration,
            {"turns": state.turns, "tokens": state.tokens, "seconds": round(state.seconds, 3)}, tuple(edited_files),
            kind, state.goal, tuple(state.workers), self.executor.where))
        self._note_tool_hooks_not_remote()
        trusted = TrustedUrls.from_user_text(state.goal)
        try:
            if kind == "team":
                report = self._resume_team(state, plan, version, redone, trusted, isolation)
            else:
                report = self._resume_plan(state, plan, version, trusted, isolation)
            applied = self.isolation.finish()
        finally:
            self.isolation.close()
        text = f"{report.summary}\n{applied}" if applied else report.summary
        return RunOutcome(kind, report.status.value == "COMPLETED", report.status.value, text)

    def _write_to(self, state: "ResumeState") -> None:
        """The run goes on in its own ledger: a session resuming another
        session's run (``/resume`` in the app) writes there meanwhile."""
        from paicli_tui.records.ledger import Ledger

        if state.session == self.session_id:
            return
        self.ledger.paused = True
        self._resumed_ledger = Ledger(self.bus, state.path, redact=self.redactor.secrets, session=state.session)

    def end_resumed_ledger(self) -> None:
        """After the job (its outcome written): back to the session's own ledger."""
        side, self._resumed_ledger = self._resumed_ledger, None
        if side is not None:
            side.close()
            self.ledger.paused = False

    def _review_before_resume(self, state: "ResumeState") -> "Plan | RunOutcome":
        """The person edits the plan first: the review opens on the current
        plan, its finished tasks marked; amendments go to the planner."""
        from paicli_tui.plan.planner import Planner, planner_options
        from paicli_tui.plan.review import review_loop

        plan, _, _ = resumed_plan(state)
        team = state.kind == "team"
        planner = Planner(self.client, self.assembler, agent="planner", role="team-planner" if team else "planner",
                          id_prefix="step" if team else "task", bus=self.bus, **planner_options(self.settings))
        approved = review_loop(planner, self.plan_reviewer, state.goal, plan, on_error=self.plan_reviewer.report_error)
        if approved is None:
            return RunOutcome(state.kind, False, "cancelled", "resume cancelled at the plan review; the run can "
                                                              "still be resumed")
        return approved

    def _resume_isolation(self, state: "ResumeState", kept: list[str]
                          ) -> "tuple[TaskIsolation | None, str, list[str], str]":
        """(isolation, integration head, files the person changed, why it cannot go on)."""
        from paicli_tui.workspace.resolver import TaskIsolation
        from paicli_tui.workspace.resume import edited_since_start, resume_isolation

        if not state.isolation_run:
            return None, "", [], ""
        if self.settings.isolation == "off":
            return None, "", [], "the run worked in isolated trees; resume it with isolation on"
        merges, head = state.kept_merges()
        attempts = {t.id: max(t.attempt - 1, 0) for t in state.tasks.values() if t.id in state.redone}
        run, why = resume_isolation(self.workspace, state.isolation_run, start=state.start, head=head,
                                    merges=merges, attempts=attempts, bus=self.bus)
        if run is None:
            return None, "", [], why
        edited_files = edited_since_start(run)
        current = self.isolation.current = TaskIsolation(run, self.isolation.resolver)
        return current, head, edited_files, ""

    def _resume_plan(self, state, plan: Plan, version: int, trusted, isolation):
        from paicli_tui.plan.executor import PlanExecutor
        from paicli_tui.plan.planner import Planner, planner_options
        from paicli_tui.team.plan_tasks import PlanTaskRunner

        cancel = self._cancel
        planner = Planner(self.client, self.assembler, agent="planner", role="planner", id_prefix="task", bus=self.bus,
                          deadline=self._run_budget.deadline, **planner_options(self.settings))

        def new_task_agent(name: str, task_type: str):
            return self._new_agent(name, "task", task_type=task_type)

        run_task = PlanTaskRunner(state.goal, new_task_agent, self.knowledge.recall, trusted, isolation=isolation,
                                  hooks=self.hooks, bus=self.bus, executor=self.executor)
        executor = PlanExecutor(
            plan, run_task, goal=state.goal, bus=self.bus, policy=state.policy or self.settings.schedule,
            parallelism=state.parallelism or self.settings.parallelism,
            workers=list(state.workers) or None,
            replanner=lambda current, failed, reason: planner.replan(state.goal, current, failed, reason, cancel=cancel),
            max_replans=state.max_replans, version=version, run_limit=self._run_budget.dispatch_limit,
            replans=state.replans, resumed=True, where=self.executor.where,
        )
        self._executor = executor
        try:
            if isolation is not None:
                isolation.hold = executor.hold
            return executor.run(cancel)
        finally:
            self._executor = None

    def _resume_team(self, state, plan: Plan, version: int, redone: list[str], trusted, isolation):
        from paicli_tui.team.orchestrator import Resumption, TeamOrchestrator

        orchestrator = TeamOrchestrator(
            client=self.client, registry=self.registry, assembler=self.assembler, bus=self.bus,
            approver=self.approver, settings=self.settings, approval_mode=self._approval_mode,
            run_budget=self._run_budget, recall=self.knowledge.recall,
        )
        attempts = {t: (state.tasks[t].attempt, state.tasks[t].feedback) for t in redone
                    if t in state.tasks and state.tasks[t].attempt > 1}
        self._orchestrator = orchestrator
        try:
            return orchestrator.run(state.goal, plan, self._cancel, trusted, isolation=isolation,
                                    resumed=Resumption(version, state.replans, attempts), executor=self.executor)
        finally:
            self._orchestrator = None
