"""The plan review screen (P-4.2, P-4.3, P-5.0, P-7.2).

Collapsed it shows the goal, the task count, the parallel rounds and the
first round; expanded, the whole task graph with the selected task and any
problems in a panel beside it. Enter runs, Ctrl+O (or v) toggles the graph,
Esc collapses, then cancels (asking first when hand edits would be lost),
I asks the planner for an amendment, and the edit keys change the plan by
hand with live validation. Nothing here is a toast: what the person needs
to read stays on the screen until it is no longer true.

The screen only reports decisions through ``on_decision``: the UI's
PlanReviewer turns them into engine answers and swaps screens.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import LoadingIndicator, Log, Static

from paicli_tui.plan.model import Plan
from paicli_tui.plan.review import ReviewDecision
from paicli_tui.ui.common.task_tree import TaskTree
from paicli_tui.ui.review import review_text
from paicli_tui.ui.review.plan_amendments import PlanAmendments
from paicli_tui.ui.review.plan_diff import PlanDiffView
from paicli_tui.ui.review.plan_edit_actions import PlanEditActions
from paicli_tui.ui.common.dialogs import Confirm
from paicli_tui.ui.review.plan_edit_state import PlanEditState

PLANNER_LINES = 200
#: Below this width the side panel goes under the tree instead of beside it.
NARROW = 100
_EDIT_ACTIONS = {"edit_description", "change_type", "edit_dependencies", "add_task", "delete_task", "move_task", "undo"}


class PlanReviewScreen(PlanAmendments, PlanEditActions, Screen):
    CSS_PATH = "plan_review.tcss"

    BINDINGS = [
        # Priority: the focused Tree would otherwise take Enter (select node)
        # and Shift+↑/↓ (jump to a sibling).
        Binding("enter", "run_plan", "Run", priority=True, id="review.run"),
        Binding("ctrl+o,v", "toggle_graph", "Graph", id="review.toggle_graph"),
        Binding("escape", "back", "Collapse / cancel", id="review.back"),
        Binding("i,I", "amend", "Amend", id="review.amend"),
        Binding("e", "edit_description", "Edit description", id="review.edit_description"),
        Binding("t", "change_type", "Change type", id="review.change_type"),
        Binding("d", "edit_dependencies", "Dependencies", id="review.edit_dependencies"),
        Binding("c", "edit_check", "Check", id="review.edit_check"),
        Binding("a", "add_task", "Add task", id="review.add_task"),
        Binding("x,delete", "delete_task", "Delete task", id="review.delete_task"),
        Binding("K,shift+up", "move_task(-1)", "Move up", priority=True, id="review.move_up"),
        Binding("J,shift+down", "move_task(1)", "Move down", priority=True, id="review.move_down"),
        Binding("u,ctrl+z", "undo", "Undo", id="review.undo"),
        Binding("s", "save", "Save", id="review.save"),
    ]

    def __init__(
        self,
        plan: Plan,
        goal: str,
        *,
        on_decision: Callable[[ReviewDecision], Any],
        save_dir: Path | None = None,
    ) -> None:
        super().__init__(id="plan-review")
        self.on_decision = on_decision
        self.save_dir = save_dir
        self.goal = goal
        self.plan = plan
        self.state = PlanEditState.from_plan(plan)
        self.expanded = False
        self.revising = False
        self._previous: Plan | None = None
        self._notice = ""
        self._rejection = ""
        self._refused = False  # Enter was pressed on an invalid plan
        self._finished = False  # a run or cancel decision was reported

    # -- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="review-title")
        yield Static(id="review-notice")
        yield PlanDiffView(id="review-diff")
        yield Static(id="review-summary")
        with Horizontal(id="review-body"):
            yield TaskTree("Plan", fit_rows=True, id="review-tree")
            with VerticalScroll(id="review-side"):
                yield Static(id="review-problems")
                yield Static(id="review-details")
        yield Static(id="review-renumber")
        with Horizontal(id="review-revising"):
            yield LoadingIndicator(id="review-spinner")
            with Vertical():
                yield Static(id="review-revising-label")
                yield Log(max_lines=PLANNER_LINES, id="review-planner-log")
        yield Static(id="review-status")
        yield Static(id="review-hints")

    def on_mount(self) -> None:
        self._refresh_all()

    def on_resize(self, event: events.Resize) -> None:
        self.query_one("#review-body").set_class(event.size.width < NARROW, "-narrow")
        self._refresh_hints()

    @property
    def task_tree(self) -> TaskTree:
        return self.query_one(TaskTree)

    # -- rendering ---------------------------------------------------------------------

    def _refresh_all(self) -> None:
        self._refresh_title()
        self._refresh_notice()
        diff = self.query_one(PlanDiffView)
        diff.display = self._previous is not None
        if self._previous is not None:
            diff.show_diff(self._previous, self.plan)
        self._refresh_plan()
        self._refresh_mode()

    def _refresh_notice(self) -> None:
        notice = self.query_one("#review-notice", Static)
        notice.display = bool(self._notice)
        notice.update(Text(self._notice))

    def _refresh_plan(self, focus: str | None = None) -> None:
        """Redraw everything the plan's content decides; ``focus`` is the
        task id the cursor goes to."""
        state = self.state
        if state.valid:
            self._refused = False  # a stale "Cannot run" never outlives the fix
        by_task, _ = state.problems_by_task()
        tree = self.task_tree
        tree.show_tasks(state.tasks(), by_task)
        if focus is not None and focus in state.ids:
            tree.select_task(focus)
        self.query_one("#review-summary", Static).update(review_text.summary_content(state, self.goal))
        problems = self.query_one("#review-problems", Static)
        problems.display = not state.valid
        problems.set_class(self._refused, "-refused")
        problems.update(review_text.problems_content(state, refused=self._refused))
        renumber = self.query_one("#review-renumber", Static)
        renumber.update(review_text.renumber_content(state))
        renumber.display = bool(state.renumbering())
        self._refresh_details()
        self._refresh_hints()

    def _refresh_details(self) -> None:
        self.query_one("#review-details", Static).update(
            review_text.details_content(self.state, self.task_tree.cursor_task_id)
        )

    def on_tree_node_highlighted(self, event: TaskTree.NodeHighlighted) -> None:
        self._refresh_details()

    def _refresh_title(self) -> None:
        title = Text("Review the team plan" if self.state.prefix == "step" else "Review the plan", style="bold")
        if self.state.edited:
            title.append("  (edited)", style="italic")
        self.query_one("#review-title", Static).update(title)

    def _refresh_mode(self) -> None:
        self.query_one("#review-summary").display = not self.expanded
        self.query_one("#review-body").display = self.expanded
        tree = self.task_tree
        if self.expanded and not self.revising:
            if tree.cursor_task_id is None:
                tree.select_first()  # the tree opens on a visible selection
            tree.focus()
        self.query_one("#review-revising").display = self.revising
        self._refresh_hints()

    def _refresh_hints(self) -> None:
        hints = self.query_one("#review-hints", Static)
        if self.revising:
            hints.update(Content("The planner is revising the plan…"))
            return
        pairs = review_text.hint_pairs(expanded=self.expanded, can_undo=self.state.can_undo, noun=self.state.noun)
        width = self.size.width - 4  # the screen's and the hint line's padding
        hints.update(review_text.key_hints(pairs, width if width > 0 else None))

    def tell(self, message: str = "", severity: str = "") -> None:
        """One line above the hints for what a key did (or why it did
        nothing); empty clears it. It never covers the plan."""
        status = self.query_one("#review-status", Static)
        status.display = bool(message)
        status.set_classes(f"-{severity}" if severity else "")
        status.update(Content(message))

    # -- keys ------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.revising and action in _EDIT_ACTIONS | {"run_plan", "amend", "toggle_graph", "back", "save"}:
            return False
        return True

    def action_run_plan(self) -> None:
        if not self.state.valid:
            # The problems are beside their tasks: show them, say nothing over them.
            self._refused = True
            self.tell()
            by_task, _ = self.state.problems_by_task()
            first = next(iter(by_task), None)
            if not self.expanded:
                self.expanded = True
                self._refresh_mode()
            self._refresh_plan(first)
            return
        self._finish(ReviewDecision("run", plan=self._edited_plan(), renumbered=tuple(self.state.renumbering())))

    def action_toggle_graph(self) -> None:
        self.expanded = not self.expanded
        self.tell()
        self._refresh_mode()

    def action_back(self) -> None:
        if self.expanded:
            self.action_toggle_graph()
            return
        if not self.state.unsaved:
            self._finish(ReviewDecision("cancel"))
            return
        question = "Discard your hand edits and cancel the plan?"

        def answered(discard: bool | None) -> None:
            if discard:
                self._finish(ReviewDecision("cancel"))

        self.app.push_screen(
            Confirm(question, hint="y: discard and cancel · n / Esc: keep editing (s saves the plan)", enter_is_yes=False),
            answered,
        )

    def _finish(self, decision: ReviewDecision) -> None:
        self._finished = True
        self.on_decision(decision)

    def on_unmount(self) -> None:
        # Removed without a decision (the app is closing): the engine thread
        # waiting for an answer must hear "cancel", never wait forever.
        if not self._finished:
            self._finish(ReviewDecision("cancel"))

    def _edited_plan(self) -> Plan | None:
        """The hand-edited plan to run, renumbered (the screen showed how)."""
        if not self.state.edited:
            return None
        plan = self.state.to_plan()
        plan.goal = self.goal
        return plan
