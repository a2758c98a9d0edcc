"""The UI's ``PlanReviewer`` (P-4.2): ``review`` runs on the session's engine
thread, hands the plan to the UI once and blocks on a Future until the person
decides on the review screen.

``review_loop`` calls ``review`` again after an amendment — with the revised
plan (the screen then shows the diff against what the person amended) or,
when the revision failed, with the very same plan (the screen says so and
why). A decision to run swaps the review screen for the run screen *before*
the engine is released, so the run's first events already reach it (the
run's ``run_started`` then finds that screen open and it adopts the run).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, InvalidStateError, TimeoutError as FutureTimeout
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from paicli_tui.plan.model import Plan
from paicli_tui.plan.review import ReviewDecision
from paicli_tui.ui.run.run_screens import open_run_screen

if TYPE_CHECKING:
    from paicli_tui.ui.review.plan_review import PlanReviewScreen

__all__ = ["PlanFileError", "UIPlanReviewer", "load_plan_file"]


def __getattr__(name: str):
    # The plan-file reader brings the plan parser and jsonschema: loaded when
    # first asked for, so the first screen draws without them.
    if name in ("PlanFileError", "load_plan_file"):
        from paicli_tui.plan import files

        return getattr(files, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

POLL_SECONDS = 0.2


class UIPlanReviewer:
    def __init__(
        self, app: Any = None, *, save_dir: Path | None = None, clock: Callable[[], float] = time.time
    ) -> None:
        self._app = app
        self.save_dir = save_dir
        self.clock = clock
        self._screen: "PlanReviewScreen | None" = None
        self._answer: Future | None = None
        # (plan reviewed, the plan the person amended) while an amendment is pending
        self._amending: tuple[Plan, Plan] | None = None
        self._closed = False
        self._errors: list[str] = []

    def attach(self, app: Any) -> None:
        """The session is made before the app: attach the app once it exists."""
        self._app = app

    # -- engine thread -----------------------------------------------------------------

    def review(self, plan: Plan, goal: str) -> ReviewDecision:
        app = self._app
        if app is None or self._closed or not app.is_running:
            return ReviewDecision("cancel")
        amending, self._amending = self._amending, None
        rejected = amending is not None and plan is amending[0]
        previous = amending[1] if amending is not None and not rejected else None
        answer: Future = Future()

        def hand_over() -> None:
            try:
                app.call_from_thread(self._present, plan, goal, answer, previous, rejected)
            except Exception:  # the app stopped: nobody can answer
                _settle(answer, ReviewDecision("cancel"))

        # A daemon thread makes the one UI hand-over, so an app that stops
        # meanwhile can never strand the engine thread.
        threading.Thread(target=hand_over, name="paicli-review-handover", daemon=True).start()
        decision = self._wait(answer)
        if decision.action == "amend":
            self._amending = (plan, decision.plan or plan)
        return decision

    def report_error(self, message: str) -> None:
        """``review_loop(on_error=…)``: why a revision was not adopted."""
        self._errors.append(message)

    def close(self) -> None:
        self._closed = True
        if self._answer is not None:
            _settle(self._answer, ReviewDecision("cancel"))

    def _wait(self, answer: Future) -> ReviewDecision:
        while True:
            try:
                return answer.result(timeout=POLL_SECONDS)
            except FutureTimeout:
                if self._closed or not self._app.is_running:
                    _settle(answer, ReviewDecision("cancel"))

    # -- UI thread ---------------------------------------------------------------------

    def _present(self, plan: Plan, goal: str, answer: Future, previous: Plan | None, rejected: bool) -> None:
        self._answer = answer
        screen = self._screen
        if screen is not None and screen in self._app.screen_stack:
            reason = self._errors[-1] if rejected and self._errors else ""
            screen.show_plan(plan, goal, previous=previous, rejected=rejected, reason=reason)
        else:
            from paicli_tui.ui.review.plan_review import PlanReviewScreen

            screen = PlanReviewScreen(plan, goal, on_decision=self._decided, save_dir=self.save_dir)
            self._screen = screen
            self._app.push_screen(screen)
        self._errors.clear()

    def _decided(self, decision: ReviewDecision) -> None:
        answer, screen = self._answer, self._screen
        if answer is None or screen is None:
            return
        if decision.action == "run":
            self._screen = None
            open_run_screen(self._app, decision.plan or screen.plan, screen.goal, replace=True, clock=self.clock)
        elif decision.action == "cancel":
            self._screen = None
            if self._app.screen is screen:
                self._app.pop_screen()
        _settle(answer, decision)


def _settle(answer: Future, decision: ReviewDecision) -> None:
    try:
        answer.set_result(decision)
    except InvalidStateError:
        pass
