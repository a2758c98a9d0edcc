"""Planning and the person's review before a /plan or /team run (P-4.1,
P-4.2): plan (unless a plan was given), review, and say why not when the
run cannot go on."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable

from paicli_tui.llm.types import ModelCancelled, ModelError
from paicli_tui.plan.parser import PlanError
from paicli_tui.plan.review import review_loop
from paicli_tui.session.port import RunKind, RunOutcome

if TYPE_CHECKING:
    from paicli_tui.plan.model import Plan
    from paicli_tui.plan.planner import Planner
    from paicli_tui.plan.review import PlanReviewer

#: (goal, cancel) → a plan; the team's planner, when it is not ``planner.create``.
CreatePlan = Callable[[str, threading.Event], "Plan"]


def plan_and_review(kind: RunKind, planner: "Planner", reviewer: "PlanReviewer | None", goal: str,
                    plan: "Plan | None", cancel: threading.Event, *, create: CreatePlan | None = None,
                    review: bool = True) -> "Plan | RunOutcome":
    """The approved plan, or a RunOutcome explaining why there is none."""
    if plan is None:
        try:
            plan = create(goal, cancel) if create else planner.create(goal, cancel=cancel)
        except ModelCancelled:
            return RunOutcome(kind, False, "CANCELLED", "cancelled")
        except (PlanError, ModelError) as exc:
            return RunOutcome(kind, False, "FAILED", f"planning failed: {exc}")
    else:
        planner.announce(plan, "file")
    if reviewer is not None and review:
        approved = review_loop(planner, reviewer, goal, plan, on_error=reviewer.report_error)
        if approved is None:
            return RunOutcome(kind, False, "CANCELLED", "plan cancelled before it ran")
        plan = approved
    if cancel.is_set():
        return RunOutcome(kind, False, "CANCELLED", "cancelled")
    return plan
