"""The hand edits of the plan review screen (P-4.3), as a mixin: edit a
task's description or type, add or remove a dependency, add, delete and move
tasks, undo, save. Each edit goes through ``PlanEditState`` (pure edits,
renumbering, live validation); the screen redraws the tree with the problems
next to their tasks."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from paicli_tui.config import data_dir
from paicli_tui.plan import edits
from paicli_tui.ui.review.plan_edit_dialogs import Confirm, TextPrompt, dependency_picker, type_picker

if TYPE_CHECKING:
    from paicli_tui.ui.review.plan_edit_state import PlanEditState
    from paicli_tui.ui.common.task_tree import TaskTree


class PlanEditActions:
    """Needs from the screen: ``state``, ``task_tree``, ``expanded``, ``goal``,
    ``save_dir``, ``action_toggle_graph``, ``_refresh_title``, ``_refresh_plan``."""

    state: "PlanEditState"
    task_tree: "TaskTree"
    expanded: bool
    goal: str
    save_dir: Path | None

    def _cursor_task(self) -> str | None:
        if not self.expanded:
            self.action_toggle_graph()
        task_id = self.task_tree.cursor_task_id
        if task_id is None and self.state.ids:
            task_id = self.state.ids[0]
            self.task_tree.select_task(task_id)
        return task_id

    def _edit(self, focus_index: int, edit: Callable[..., dict], *args) -> None:
        self.state.apply(edit, *args)
        self._after_edit(focus_index)

    def _after_edit(self, focus_index: int) -> None:
        self._refresh_title()
        self._refresh_plan(focus_index)
        if not self.state.valid:
            self.notify(f"This edit breaks the plan: {self.state.problems[0]}", severity="warning", markup=False)

    def action_edit_description(self) -> None:
        if (task_id := self._cursor_task()) is None:
            return
        index = self.state.index_of(task_id)

        def done(text: str | None) -> None:
            if text:
                self._edit(index, edits.set_description, task_id, text)

        self.app.push_screen(TextPrompt(f"Description of {task_id}", self.state.task(task_id).description), done)

    def action_change_type(self) -> None:
        if (task_id := self._cursor_task()) is None:
            return
        index = self.state.index_of(task_id)

        def done(choice: str | None) -> None:
            if choice:
                self._edit(index, edits.set_type, task_id, choice)

        self.app.push_screen(type_picker(task_id, self.state.task(task_id).type), done)

    def action_edit_dependencies(self) -> None:
        if (task_id := self._cursor_task()) is None:
            return
        index = self.state.index_of(task_id)
        task = self.state.task(task_id)
        others = [(t.id, t.description) for t in self.state.tasks() if t.id != task_id]
        if not others:
            self.notify("There is no other task to depend on", markup=False)
            return

        def done(choice: str | None) -> None:
            if choice:
                edit = edits.remove_dependency if choice in task.dependencies else edits.add_dependency
                self._edit(index, edit, task_id, choice)

        self.app.push_screen(dependency_picker(task_id, others, task.dependencies), done)

    def action_add_task(self) -> None:
        after = self._cursor_task()
        index = self.state.index_of(after) + 1 if after is not None else len(self.state.ids)

        def done(text: str | None) -> None:
            if text:
                self._edit(index, edits.add_task, after, text, "ANALYSIS", self.state.prefix)

        where = f"after {after}" if after else "at the end"
        self.app.push_screen(TextPrompt(f"New task {where}: description (t changes its type)"), done)

    def action_delete_task(self) -> None:
        if (task_id := self._cursor_task()) is None:
            return
        if len(self.state.ids) <= 1:
            self.notify("A plan needs at least one task", severity="warning", markup=False)
            return
        index = self.state.index_of(task_id)
        dependents = [t.id for t in self.state.tasks() if task_id in t.dependencies]
        question = f"Delete {task_id} “{self.state.task(task_id).description}”?"
        if dependents:
            question += f"\n{', '.join(dependents)} will lose this dependency."

        def done(yes: bool | None) -> None:
            if yes:
                self._edit(index, edits.delete_task, task_id)

        self.app.push_screen(Confirm(question), done)

    def action_move_task(self, offset: int) -> None:
        if (task_id := self._cursor_task()) is None:
            return
        index = self.state.index_of(task_id)
        self._edit(index + offset, edits.move_task, task_id, offset)

    def action_undo(self) -> None:
        focus = self.task_tree.cursor_task_id
        index = self.state.index_of(focus) if focus in self.state.ids else 0
        if not self.state.undo():
            self.notify("Nothing to undo", markup=False)
            return
        self._refresh_title()
        self._refresh_plan(index)

    def action_save(self) -> None:
        folder = self.save_dir or data_dir() / "plans"
        try:
            path = self.state.save(folder, self.goal)
        except OSError as exc:
            self.notify(f"Could not save the plan: {exc}", severity="error", markup=False)
            return
        warning = " (it has problems: it will not load until they are fixed)" if not self.state.valid else ""
        self.notify(f"Plan saved to {path}{warning}", markup=False)
