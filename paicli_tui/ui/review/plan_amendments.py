"""The review screen's side of an amendment (P-4.2), as a mixin: I asks
the planner to change the plan, the planner's stream shows while it works,
and the revision comes back through ``show_plan`` — diffed against what the
person amended, or, when it was rejected, the previous plan again with why.
Hand edits made before the amendment are sent with it, with the ids the
person saw, so the diff speaks of the same tasks."""

from __future__ import annotations

from typing import Any, Callable

from rich.text import Text
from textual.widgets import Log, Static

from paicli_tui import events as ev
from paicli_tui.plan.model import Plan
from paicli_tui.plan.review import ReviewDecision
from paicli_tui.ui.bridge.pump_items import TextRun
from paicli_tui.ui.review.plan_edit_dialogs import TextPrompt
from paicli_tui.ui.review.plan_edit_state import PlanEditState


class PlanAmendments:
    """Needs from the screen: ``state``, ``goal``, ``plan``, ``on_decision``,
    ``tell``, ``_refresh_all``, ``_refresh_notice``, ``_refresh_mode``."""

    state: PlanEditState
    plan: Plan
    goal: str
    on_decision: Callable[[ReviewDecision], Any]
    revising: bool
    _previous: Plan | None
    _notice: str
    _rejection: str
    _refused: bool

    def show_plan(
        self, plan: Plan, goal: str, *, previous: Plan | None = None, rejected: bool = False, reason: str = ""
    ) -> None:
        """A plan version to review: a revision (diffed against ``previous``)
        or, after a failed revision, the previous plan again (``reason`` says
        why, when the reviewer heard it before the rejection event arrived)."""
        self.revising = False
        self.plan, self.goal = plan, goal
        self.state = PlanEditState.from_plan(plan)
        self._refused = False
        self._previous = previous if previous is not None and previous is not plan else None
        if rejected:
            self._rejection = self._rejection or reason
            why = f" Reason: {self._rejection}" if self._rejection else ""
            self._notice = "The revised plan was rejected; the previous plan is kept." + why
        else:
            self._notice = ""
        self._refresh_all()

    async def paint(self, items: list[Any]) -> None:
        """The app's per-frame batch: the planner's stream while revising,
        and why a revision was rejected."""
        stream = []
        for item in items:
            if isinstance(item, TextRun) and item.actor == "planner" and self.revising:
                stream.append(item.text)
            elif isinstance(item, ev.PlanRejected) and item.origin == "amendment":
                self._note_rejection(item.error)
            elif isinstance(item, ev.ModelError) and item.actor == "planner" and (self.revising or self._notice):
                self._note_rejection(f"the planner call failed ({item.kind}): {item.message}")
        if stream:
            self.query_one("#review-planner-log", Log).write("".join(stream))

    def _note_rejection(self, reason: str) -> None:
        self._rejection = reason
        if not self.revising and self._notice:
            self._notice = f"The revised plan was rejected; the previous plan is kept. Reason: {reason}"
            self._refresh_notice()


    def action_amend(self) -> None:
        self.tell()
        prompt = TextPrompt(
            "Amend the plan: what should change?",
            placeholder="e.g. also run the tests at the end",
            hint="Enter: send to the planner · Esc: back",
        )
        self.app.push_screen(prompt, self._amend_with)

    def _amend_with(self, amendment: str | None) -> None:
        if not amendment:
            return
        # The planner amends what the person sees, ids included (the diff then speaks of them too).
        edited = self.state.as_edited() if self.state.edited and self.state.valid else None
        if edited is not None:
            edited.goal = self.goal
        self._previous = None
        self.revising = True
        self._rejection = ""
        self._notice = ""
        self.query_one("#review-revising-label", Static).update(Text(f"Revising the plan: “{amendment}”"))
        self.query_one("#review-planner-log", Log).clear()
        self._refresh_notice()
        self._refresh_mode()
        self.on_decision(ReviewDecision("amend", amendment=amendment, plan=edited))
