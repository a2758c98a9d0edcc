"""The session's /plan and /team runs: plan (and review the plan), then
run its tasks on the worker pool, each in its own tree when isolation is on,
where the session's executor runs them (docs/executors.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paicli_tui.session.planning import plan_and_review
from paicli_tui.session.port import RunOutcome

if TYPE_CHECKING:
    from paicli_tui.agent.loop import Agent
    from paicli_tui.plan.model import Plan


class PlanAndTeamRuns:
    """The Session's ``run_plan`` and ``run_team`` (a mixin: it uses the
    session's client, isolation, hooks, budgets and executor)."""

    def run_plan(self, goal: str, plan: "Plan | None" = None) -> RunOutcome:
        from paicli_tui.plan.executor import PlanExecutor
        from paicli_tui.plan.planner import Planner, planner_options
        from paicli_tui.team.plan_tasks import PlanTaskRunner
        from paicli_tui.tools.trusted_urls import TrustedUrls

        goal, refused = self._open_run("plan", goal, plan)
        if refused is not None:
            return refused
        self._note_tool_hooks_not_remote()
        cancel = self._cancel
        slots = [f"worker-{i}" for i in range(1, self.settings.parallelism + 1)]
        self.isolation.prepare(slots)
        planner = Planner(self.client, self.assembler, agent="planner", role="planner", id_prefix="task", bus=self.bus,
                          deadline=self._run_budget.deadline, **planner_options(self.settings))
        planned = plan_and_review("plan", planner, self.plan_reviewer, goal, plan, cancel,
                                  check=self.session_hooks.plan_check("plan", planner, goal, cancel))
        if isinstance(planned, RunOutcome):
            self.isolation.close()
            return planned
        goal = planned.goal or goal  # amendments extend the goal (P-4.2)

        def new_task_agent(name: str, task_type: str) -> Agent:
            return self._new_agent(name, "task", task_type=task_type)

        isolation = self.isolation.begin(self._checkpoint_run or self.session_id, slots)
        run_task = PlanTaskRunner(goal, new_task_agent, self.knowledge.recall, TrustedUrls.from_user_text(goal),
                                  isolation=isolation, hooks=self.hooks, bus=self.bus, executor=self.executor)

        def replan(current_plan, failed_task, reason):
            return planner.replan(goal, current_plan, failed_task, reason, cancel=cancel)

        executor = PlanExecutor(
            planned,
            run_task,
            goal=goal,
            bus=self.bus,
            policy=self.settings.schedule,
            parallelism=self.settings.parallelism,
            replanner=replan,
            version=max(planner.version, 1),
            run_limit=self._run_budget.dispatch_limit,
            where=self.executor.where,
        )
        self._executor = executor
        try:
            if isolation is not None:
                isolation.hold = executor.hold
            report = executor.run(cancel)
            applied = self.isolation.finish()
        finally:
            self._executor = None
            self.isolation.close()
        return RunOutcome("plan", report.status.value == "COMPLETED", report.status.value,
                          _with_note(report.summary, applied))

    def run_team(self, goal: str, plan: "Plan | None" = None) -> RunOutcome:
        from paicli_tui.team.orchestrator import TeamOrchestrator
        from paicli_tui.tools.trusted_urls import TrustedUrls

        goal, refused = self._open_run("team", goal, plan)
        if refused is not None:
            return refused
        self._note_tool_hooks_not_remote()
        cancel = self._cancel
        slots = [f"worker-{i}" for i in range(1, self.settings.workers + 1)]
        self.isolation.prepare(slots)
        orchestrator = TeamOrchestrator(
            client=self.client,
            registry=self.registry,
            assembler=self.assembler,
            bus=self.bus,
            approver=self.approver,
            settings=self.settings,
            approval_mode=self._approval_mode,
            run_budget=self._run_budget,
            recall=self.knowledge.recall,
        )
        review = self.settings.team_review
        planned = plan_and_review("team", orchestrator.planner, self.plan_reviewer, goal, plan, cancel,
                                  create=orchestrator.plan, review=review,
                                  check=self.session_hooks.plan_check("team", orchestrator.planner, goal, cancel))
        if isinstance(planned, RunOutcome):
            self.isolation.close()
            return planned
        goal = planned.goal or goal
        self._orchestrator = orchestrator
        try:
            isolation = self.isolation.begin(self._checkpoint_run or self.session_id, slots)
            report = orchestrator.run(goal, planned, cancel, TrustedUrls.from_user_text(goal), isolation=isolation,
                                      executor=self.executor)
            applied = self.isolation.finish()
        finally:
            self._orchestrator = None
            self.isolation.close()
        return RunOutcome("team", report.status.value == "COMPLETED", report.status.value,
                          _with_note(report.summary, applied))

    def _note_tool_hooks_not_remote(self) -> None:
        """One line when the tasks run elsewhere and tool hooks are set: the
        hook commands are this machine's, so a remote agent's calls skip them."""
        if self.executor.name == "local" or self.hooks is None:
            return
        events = sorted({hook.event for hook in self.hooks.hooks
                         if hook.event in ("PreToolUse", "PostToolUse") and self.hooks.is_active(hook)})
        if events:
            from paicli_tui.events import AgentNote

            self.bus.publish(AgentNote("session", f"{' and '.join(events)} hooks are not run on {self.executor.where}: "
                                                  "tool calls of tasks there run without them"))


def _with_note(summary: str, note: str) -> str:
    return f"{summary}\n{note}" if note else summary
