"""The hooks a session runs around its runs: SessionStart and
UserPromptSubmit before the first model call, PlanReady before a plan is
reviewed, Stop when a run ends. All run on the session's engine thread,
never on a front end's thread."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from paicli_tui.events import AgentNote

from paicli_tui.hooks.runner import NO_HOOKS, HookRunner, HookVerdict
from paicli_tui.llm.types import ModelError
from paicli_tui.plan.parser import PlanError

if TYPE_CHECKING:
    from paicli_tui.config.settings import Settings
    from paicli_tui.events import EventBus
    from paicli_tui.plan.model import Plan

#: Times a plan goes back to the planner because a PlanReady hook refused it.
PLAN_REVISIONS = 2
MAX_STOP_TEXT = 16_000


def with_hook_context(message: str, context: str) -> str:
    """What exit-0 hooks printed, after the person's message, marked as theirs."""
    return f"{message}\n\n<hook-context>\n{context}\n</hook-context>" if context else message


def before_prompt(runner: HookRunner | None, *, first: bool, resumed: bool, kind: str, prompt: str,
                  attachments: tuple[str, ...], model: str, mode: str, cancel: threading.Event) -> HookVerdict:
    """SessionStart (the session's first run only; it cannot block) then
    UserPromptSubmit; their contexts together, or the block."""
    if runner is None:
        return NO_HOOKS
    contexts, warnings = [], []
    if first:
        started = runner.run("SessionStart", {"source": "resume" if resumed else "startup", "model": model,
                                              "mode": mode}, match=kind, cancel=cancel)
        contexts.append(started.context)
        warnings.extend(started.warnings)
    submitted = runner.run("UserPromptSubmit", {"prompt": prompt, "kind": kind, "attachments": list(attachments)},
                           match=kind, cancel=cancel)
    warnings.extend(submitted.warnings)
    if submitted.blocked:
        return HookVerdict(True, submitted.reason, "", tuple(warnings))
    contexts.append(submitted.context)
    return HookVerdict(False, "", "\n".join(c for c in contexts if c), tuple(warnings))


def plan_ready(runner: HookRunner | None, planner, goal: str, plan: "Plan", kind: str,
               cancel: threading.Event, note: Callable[[str], None]) -> "Plan | str":
    """The plan PlanReady hooks let through (revised by the planner with
    their reason at most ``PLAN_REVISIONS`` times), or why none was."""
    if runner is None or not runner.matching("PlanReady", kind):
        return plan
    for revision in range(PLAN_REVISIONS + 1):
        verdict = runner.run("PlanReady", {"kind": kind, "goal": goal, "plan": plan.to_dict(),
                                           "revision": revision}, match=kind, cancel=cancel)
        if verdict.context:
            note(f"plan checks: {verdict.context}")
        if not verdict.blocked:
            return plan
        if revision == PLAN_REVISIONS or cancel.is_set():
            return f"plan rejected by hook: {verdict.reason}"
        try:
            plan = planner.revise(plan, goal, f"A check rejected the plan: {verdict.reason}", cancel=cancel)
        except (PlanError, ModelError) as exc:
            return f"plan rejected by hook: {verdict.reason} (the planner's revision failed: {exc})"
    raise AssertionError("unreachable: the last revision returns")


def at_stop(runner: HookRunner | None, *, kind: str, ok: bool, status: str, text: str,
            active: bool) -> HookVerdict:
    """Stop hooks at the end of a run; ``active`` says a Stop hook already
    continued this turn once (so a hook can avoid a loop)."""
    if runner is None:
        return NO_HOOKS
    return runner.run("Stop", {"kind": kind, "ok": ok, "status": status, "text": text[:MAX_STOP_TEXT],
                               "stop_hook_active": active}, match=kind)


class SessionHooks:
    """The session's side of its hooks: SessionStart only with the first
    run, PlanReady before review, a Stop hook that may continue a ReAct
    turn once. ``model`` and ``mode`` are read when a run starts."""

    def __init__(self, runner: HookRunner | None, *, resumed: bool, bus: "EventBus",
                 model: Callable[[], str], mode: Callable[[], str]) -> None:
        self.runner = runner
        self.resumed = resumed
        self.bus = bus
        self.model = model
        self.mode = mode
        self._first = True

    @classmethod
    def for_session(cls, settings: "Settings", workspace: Path, session_id: str, bus: "EventBus", redactor,
                    warnings: list[str], *, trust_workspace: bool, resumed: bool, model: Callable[[], str],
                    mode: Callable[[], str]) -> "SessionHooks":
        runner = HookRunner.for_session(settings, workspace, session_id, bus, redactor, warnings,
                                        trust_workspace=trust_workspace)
        return cls(runner, resumed=resumed, bus=bus, model=model, mode=mode)

    def note(self, text: str) -> None:
        self.bus.publish(AgentNote("session", text))

    def before_prompt(self, kind: str, prompt: str, attachments: tuple[str, ...] = (), *,
                      cancel: threading.Event) -> HookVerdict:
        first, self._first = self._first, False
        return before_prompt(self.runner, first=first, resumed=self.resumed, kind=kind, prompt=prompt,
                             attachments=attachments, model=self.model(), mode=self.mode(), cancel=cancel)

    def plan_check(self, kind: str, planner, goal: str, cancel: threading.Event) -> Callable[["Plan"], "Plan | str"]:
        """PlanReady hooks as ``plan_and_review``'s check."""
        return lambda plan: plan_ready(self.runner, planner, goal, plan, kind, cancel, self.note)

    def at_stop(self, kind: str, ok: bool, status: str, text: str, cancel: threading.Event,
                agent=None) -> tuple[bool, str, str] | None:
        """The run's (ok, status, text) after a Stop hook continued it on
        ``agent`` (a ReAct turn's), or None when the run stands as it was."""
        if kind == "command":  # /clear is not a run
            return None
        verdict = at_stop(self.runner, kind=kind, ok=ok, status=status, text=text, active=False)
        if not verdict.blocked or cancel.is_set():
            return None
        if agent is None:
            self.note(f"a Stop hook objected, but a {kind} run is not continued: {verdict.reason}")
            return None
        turn = agent.run_turn(verdict.reason, cancel=cancel)
        ok, status, text = turn.status == "final", turn.status, turn.text if turn.status != "failed" else turn.reason
        at_stop(self.runner, kind=kind, ok=ok, status=status, text=text, active=True)
        return ok, status, text
