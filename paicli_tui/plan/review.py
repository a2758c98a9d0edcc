"""Reviewing a plan before it runs (P-4.2) and the headless line mode (P-4.4).

A ``PlanReviewer`` answers run / cancel / amend for one plan; the full-screen
review screen is one, ``LineReviewer`` (stdin/stdout) another. ``review_loop``
drives any of them: an amendment goes to the planner and the revised plan is
reviewed again; a revision that fails to parse is shown with its reason and
the previous plan stays under review, so nothing the person typed is lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal, Protocol, TextIO

from paicli_tui.llm.types import ModelError
from paicli_tui.plan.model import Plan

RUN_WORDS = frozenset({"", "y", "yes", "run"})
CANCEL_WORDS = frozenset({"cancel", "esc"})
VIEW_WORD = "/view"
PROMPT = "Run this plan? [Enter/y/run = run · /view = full plan · cancel = cancel · other text = amendment] > "


@dataclass(frozen=True)
class ReviewDecision:
    action: Literal["run", "cancel", "amend"]
    amendment: str = ""
    #: A hand-edited plan to run instead of the one reviewed (UI review only).
    plan: Plan | None = None
    #: (id the person saw, id it runs as) for each id that running renumbered
    #: (hand edits keep ids stable until then), for a run screen to show.
    renumbered: tuple[tuple[str, str], ...] = ()


class PlanReviewer(Protocol):
    def review(self, plan: Plan, goal: str) -> ReviewDecision: ...

    def report_error(self, message: str) -> None:
        """Where review_loop says a revision was refused."""
        ...


class Reviser(Protocol):
    def revise(self, plan: Plan, goal: str, amendment: str) -> Plan: ...


def collapsed_summary(plan: Plan, goal: str) -> str:
    """Goal, task count ("steps" for a team plan), number of parallel rounds
    and the first round."""
    rounds = plan.batches()
    noun = "step" if plan.tasks and all(task.id.startswith("step_") for task in plan.tasks) else "task"
    lines = [f"Goal: {goal}"]
    if plan.summary:
        lines.append(f"Plan: {plan.summary}")
    count = f"{len(plan.tasks)} {noun}{'s' if len(plan.tasks) != 1 else ''}"
    lines.append(f"{count} in {len(rounds)} parallel round{'s' if len(rounds) != 1 else ''}")
    if rounds:
        lines.append("First round:")
        lines.extend(f"  {tid} [{plan.task(tid).type.value}] {plan.task(tid).description}" for tid in rounds[0])
    lines.extend(_warnings(plan))
    return "\n".join(lines)


def full_plan(plan: Plan) -> str:
    """Every task in topological order with its dependencies, then the rounds."""
    lines = []
    for tid in plan.topological_order():
        task = plan.task(tid)
        after = ", ".join(task.dependencies) if task.dependencies else "none"
        lines.append(f"{task.id} [{task.type.value}] {task.description}")
        lines.append(f"    depends on: {after}")
    for number, members in enumerate(plan.batches(), start=1):
        lines.append(f"Round {number}: {', '.join(members)}")
    lines.extend(_warnings(plan))
    return "\n".join(lines)


def _warnings(plan: Plan) -> list[str]:
    return [f"Warning: {task.id}: {warning}" for task in plan.tasks
            for warning in (task.type_warning, task.check_warning) if warning]


class LineReviewer(PlanReviewer):
    """P-4.4: reads one answer per line from ``source``, writes to ``sink``.
    End of input means cancel: a closed pipe must never start a run."""

    def __init__(self, source: TextIO, sink: TextIO) -> None:
        self.source = source
        self.sink = sink

    def review(self, plan: Plan, goal: str) -> ReviewDecision:
        # Piped input is not echoed, so each block starts on a fresh line.
        self._write("\n" + collapsed_summary(plan, goal) + "\n")
        while True:
            self._write(PROMPT)
            line = self.source.readline()
            if not line:
                self._write("\n(end of input: plan cancelled)\n")
                return ReviewDecision("cancel")
            answer = line.strip()
            word = answer.lower()
            if word in RUN_WORDS:
                return ReviewDecision("run")
            if word in CANCEL_WORDS:
                return ReviewDecision("cancel")
            if word == VIEW_WORD:
                self._write("\n" + full_plan(plan) + "\n")
                continue
            return ReviewDecision("amend", amendment=answer)

    def report_error(self, message: str) -> None:
        """review_loop's ``on_error``: problems go where the review is shown
        (stderr under --json, so stdout stays pure JSON)."""
        self._write(message + "\n")

    def _write(self, text: str) -> None:
        self.sink.write(text)
        self.sink.flush()


def review_loop(
    planner: Reviser,
    reviewer: PlanReviewer,
    goal: str,
    plan: Plan,
    *,
    on_error: Callable[[str], object] = print,
) -> Plan | None:
    """Review until the person runs (→ the plan to run, its ``goal`` set) or
    cancels (→ None). Amendments extend the goal as ``GOAL\\nAmendment: …``."""
    # Here, not at the top: the parser brings jsonschema, which the app's first screen does without.
    from paicli_tui.plan.parser import PlanError

    while True:
        decision = reviewer.review(plan, goal)
        if decision.action == "run":
            chosen = decision.plan or plan
            chosen.goal = goal
            announce = getattr(planner, "announce", None)
            if decision.plan is not None and decision.plan is not plan and announce is not None:
                announce(chosen, "edit")  # the ledger must hold the plan that really runs
            return chosen
        if decision.action == "cancel":
            return None
        if decision.plan is not None and decision.plan is not plan:
            # Hand edits made before the amendment are part of what is amended.
            plan = decision.plan
            plan.goal = goal
            announce = getattr(planner, "announce", None)
            if announce is not None:
                announce(plan, "edit")
        try:
            revised = planner.revise(plan, goal, decision.amendment)
        except PlanError as exc:
            on_error(f"The revised plan was rejected, the previous plan is kept: {exc}")
            continue
        except ModelError as exc:
            on_error(f"The planner call failed, the previous plan is kept: {exc}")
            continue
        plan = revised
        goal = revised.goal or f"{goal}\nAmendment: {decision.amendment}"
