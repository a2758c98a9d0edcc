"""The plan review screen (P-4.2, P-4.3, P-5.0, P-7.2).

Collapsed it shows the goal, the task count, the parallel rounds and the
first round; expanded, the whole task graph. Enter runs, Ctrl+O (or v)
toggles the graph, Esc collapses then cancels, I asks the planner for an
amendment, and the edit keys change the plan by hand with live validation.
The screen only reports decisions through ``on_decision``: the UI's
PlanReviewer turns them into engine answers and swaps screens.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import LoadingIndicator, Log, Static

from paicli_tui import events as ev
from paicli_tui.plan.model import Plan
from paicli_tui.plan.review import ReviewDecision
from paicli_tui.ui.bridge.event_pump import TextRun
from paicli_tui.ui.review.plan_edit_state import PlanEditState
from paicli_tui.ui.review.plan_edit_actions import PlanEditActions
from paicli_tui.ui.review.plan_edit_dialogs import TextPrompt
from paicli_tui.ui.review.plan_diff import PlanDiffView
from paicli_tui.ui.common.task_tree import GLYPHS, TaskTree

HINTS_COLLAPSED = (
    "[Enter] run · [Ctrl+O/v] full graph · [I] amend · [e t d a x K J] edit · [u] undo · [s] save · [Esc] cancel"
)
HINTS_EXPANDED = (
    "[Enter] run · [Ctrl+O/v] collapse · [I] amend · [e] description · [t] type · [d] dependencies · "
    "[a] add · [x] delete · [K/J] move · [u] undo · [s] save · [Esc] collapse"
)
PLANNER_LINES = 200
_EDIT_ACTIONS = {"edit_description", "change_type", "edit_dependencies", "add_task", "delete_task", "move_task", "undo"}


class PlanReviewScreen(PlanEditActions, Screen):
    CSS_PATH = "plan_review.tcss"

    BINDINGS = [
        # Priority: the focused Tree would otherwise take Enter (select node).
        Binding("enter", "run_plan", "Run", priority=True, id="review.run"),
        Binding("ctrl+o,v", "toggle_graph", "Graph", id="review.toggle_graph"),
        Binding("escape", "back", "Collapse / cancel", id="review.back"),
        Binding("i", "amend", "Amend", id="review.amend"),
        Binding("e", "edit_description", "Edit description", id="review.edit_description"),
        Binding("t", "change_type", "Change type", id="review.change_type"),
        Binding("d", "edit_dependencies", "Dependencies", id="review.edit_dependencies"),
        Binding("a", "add_task", "Add task", id="review.add_task"),
        Binding("x,delete", "delete_task", "Delete task", id="review.delete_task"),
        Binding("K,shift+up", "move_task(-1)", "Move up", id="review.move_up"),
        Binding("J,shift+down", "move_task(1)", "Move down", id="review.move_down"),
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
        self._finished = False  # a run or cancel decision was reported

    # -- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="review-title")
        yield Static(id="review-notice")
        yield PlanDiffView(id="review-diff")
        yield Static(id="review-summary")
        yield TaskTree("Plan", id="review-tree")
        yield Static(id="review-problems")
        with Horizontal(id="review-revising"):
            yield LoadingIndicator(id="review-spinner")
            with Vertical():
                yield Static(id="review-revising-label")
                yield Log(max_lines=PLANNER_LINES, id="review-planner-log")
        yield Static(id="review-hints")

    def on_mount(self) -> None:
        self._refresh_all()

    @property
    def task_tree(self) -> TaskTree:
        return self.query_one(TaskTree)

    # -- new versions (called by the reviewer) ------------------------------------------

    def show_plan(
        self, plan: Plan, goal: str, *, previous: Plan | None = None, rejected: bool = False, reason: str = ""
    ) -> None:
        """A plan version to review: a revision (diffed against ``previous``)
        or, after a failed revision, the previous plan again (``reason`` says
        why, when the reviewer heard it before the rejection event arrived)."""
        self.revising = False
        self.plan, self.goal = plan, goal
        self.state = PlanEditState.from_plan(plan)
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

    def _refresh_plan(self, focus_index: int | None = None) -> None:
        by_task, general = self.state.problems_by_task()
        tree = self.task_tree
        tree.show_tasks(self.state.tasks(), by_task)
        ids = self.state.ids
        if focus_index is not None and ids:
            tree.select_task(ids[max(0, min(focus_index, len(ids) - 1))])
        self.query_one("#review-summary", Static).update(self._summary_text())
        problems = self.query_one("#review-problems", Static)
        problems.display = not self.state.valid
        lines = [f"⚠ {text}" for text in general]
        lines += [f"⚠ {tid}: {problem}" for tid, items in by_task.items() for problem in items]
        problems.update(Text("\n".join(["This plan cannot run until these are fixed (u undoes):", *lines])))

    def _refresh_title(self) -> None:
        title = Text("Review the team plan" if self.state.prefix == "step" else "Review the plan", style="bold")
        if self.state.edited:
            title.append("  (edited)", style="italic")
        self.query_one("#review-title", Static).update(title)

    def _summary_text(self) -> Text:
        text = Text()
        text.append("Goal: ", style="bold")
        text.append(self.goal)
        summary = self.state.plan_dict.get("summary")
        if isinstance(summary, str) and summary:
            text.append("\nPlan: ", style="bold")
            text.append(summary)
        count = len(self.state.entries)
        noun = "step" if self.state.prefix == "step" else "task"
        if not self.state.valid:
            text.append(f"\n{count} {noun}s · ", style="bold")
            text.append("the plan has problems (listed below)")
            return text
        plan = self.state.to_plan()
        rounds = plan.batches()
        counted = f"{count} {noun}{'s' if count != 1 else ''}"
        text.append(f"\n{counted} in {len(rounds)} parallel round{'s' if len(rounds) != 1 else ''}", style="bold")
        if rounds:
            text.append("\nFirst round:")
            for tid in rounds[0]:
                task = plan.task(tid)
                text.append(f"\n  {GLYPHS['PENDING']} {tid} ")
                text.append(task.type.value, style="dim")
                text.append(f"  {task.description}")
        for task in plan.tasks:
            if task.type_warning:
                text.append(f"\nWarning: {task.id}: {task.type_warning}", style="italic")
        return text

    def _refresh_mode(self) -> None:
        self.query_one("#review-summary").display = not self.expanded
        tree = self.task_tree
        tree.display = self.expanded
        if self.expanded and not self.revising:
            tree.focus()
        revising = self.query_one("#review-revising")
        revising.display = self.revising
        hints = self.query_one("#review-hints", Static)
        if self.revising:
            hints.update(Text("The planner is revising the plan…"))
        else:
            hints.update(Text(HINTS_EXPANDED if self.expanded else HINTS_COLLAPSED))

    # -- keys ------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.revising and action in _EDIT_ACTIONS | {"run_plan", "amend", "toggle_graph", "back", "save"}:
            return False
        return True

    def action_run_plan(self) -> None:
        if not self.state.valid:
            first = self.state.problems[0]
            count = len(self.state.problems)
            problems = f"{count} problem{'s' if count != 1 else ''}"
            self.notify(
                f"Cannot run: the plan has {problems} — {first} (u undoes the last edit)",
                severity="error",
                markup=False,
            )
            return
        self._finish(ReviewDecision("run", plan=self._edited_plan()))

    def action_toggle_graph(self) -> None:
        self.expanded = not self.expanded
        self._refresh_mode()

    def action_back(self) -> None:
        if self.expanded:
            self.action_toggle_graph()
        else:
            self._finish(ReviewDecision("cancel"))

    def _finish(self, decision: ReviewDecision) -> None:
        self._finished = True
        self.on_decision(decision)

    def on_unmount(self) -> None:
        # Removed without a decision (the app is closing): the engine thread
        # waiting for an answer must hear "cancel", never wait forever.
        if not self._finished:
            self._finish(ReviewDecision("cancel"))

    def action_amend(self) -> None:
        prompt = TextPrompt(
            "Amend the plan: what should change?",
            placeholder="e.g. also run the tests at the end",
            hint="Enter: send to the planner · Esc: back",
        )
        self.app.push_screen(prompt, self._amend_with)

    def _amend_with(self, amendment: str | None) -> None:
        if not amendment:
            return
        edited = self._edited_plan() if self.state.valid else None
        self._previous = None
        self.revising = True
        self._rejection = ""
        self._notice = ""
        self.query_one("#review-revising-label", Static).update(Text(f"Revising the plan: “{amendment}”"))
        self.query_one("#review-planner-log", Log).clear()
        self._refresh_notice()
        self._refresh_mode()
        self.on_decision(ReviewDecision("amend", amendment=amendment, plan=edited))

    def _edited_plan(self) -> Plan | None:
        if not self.state.edited:
            return None
        plan = self.state.to_plan()
        plan.goal = self.goal
        return plan
