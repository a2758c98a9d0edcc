"""The hand edits of the plan review screen (P-4.3), as a mixin: edit a
task's description or type, add or remove a dependency, add, delete and
move tasks, undo, save.

An edit acts only on a task the person can see highlighted: pressed in the
collapsed view, an edit key opens the graph with the cursor on the first
task and says so, and the next press edits. Each edit goes through
``PlanEditState`` (pure edits, live validation, ids left as they are); the
screen redraws the tree with the problems beside their tasks."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from paicli_tui.config.paths import data_dir
from paicli_tui.plan import edits
from paicli_tui.ui.common.dialogs import Confirm
from paicli_tui.ui.review.plan_edit_dialogs import TextPrompt, dependency_picker, type_picker

if TYPE_CHECKING:
    from paicli_tui.ui.common.task_tree import TaskTree
    from paicli_tui.ui.review.plan_edit_state import PlanEditState

#: What each edit key does, for "press it again" after the graph opens.
_VERBS = {
    "e": "edit its description",
    "t": "change its type",
    "d": "change its dependencies",
    "c": "edit its check",
    "a": "add a {noun} after it",
    "x": "delete it",
    "K": "move it up",
    "J": "move it down",
}


class PlanEditActions:
    """Needs from the screen: ``state``, ``task_tree``, ``expanded``, ``goal``,
    ``save_dir``, ``action_toggle_graph``, ``tell``, ``_refresh_title``,
    ``_refresh_plan``."""

    state: "PlanEditState"
    task_tree: "TaskTree"
    expanded: bool
    goal: str
    save_dir: Path | None

    def _visible_task(self, key: str) -> str | None:
        """The highlighted task, or None after opening the graph on the
        first task (an edit must never act on a row the person cannot see)."""
        if not self.expanded:
            self.action_toggle_graph()
            task_id = self.task_tree.cursor_task_id
            verb = _VERBS[key].format(noun=self.state.noun)
            self.tell(f"The cursor is on {task_id}: press {key} again to {verb} (↑/↓ choose another {self.state.noun})")
            return None
        self.tell()
        task_id = self.task_tree.cursor_task_id
        if task_id is None and self.task_tree.select_first():
            task_id = self.task_tree.cursor_task_id
        return task_id

    def _edit(self, focus: str | None, edit: Callable[..., dict], *args) -> bool:
        if not self.state.apply(edit, *args):
            return False
        self._after_edit(focus)
        return True

    def _after_edit(self, focus: str | None) -> None:
        self._refresh_title()
        self._refresh_plan(focus)

    def action_edit_description(self) -> None:
        if (task_id := self._visible_task("e")) is None:
            return

        def done(text: str | None) -> None:
            if text:
                self._edit(task_id, edits.set_description, task_id, text)

        self.app.push_screen(TextPrompt(f"Description of {task_id}", self.state.task(task_id).description), done)

    def action_change_type(self) -> None:
        if (task_id := self._visible_task("t")) is None:
            return

        def done(choice: str | None) -> None:
            if choice:
                self._edit(task_id, edits.set_type, task_id, choice)

        self.app.push_screen(type_picker(task_id, self.state.task(task_id).type), done)

    def action_edit_check(self) -> None:
        if (task_id := self._visible_task("c")) is None:
            return

        def done(text: str | None) -> None:
            # An emptied field removes the check; Esc (None) changes nothing.
            if text is not None and text.strip() != self.state.task(task_id).check:
                self._edit(task_id, edits.set_check, task_id, text)

        title = f"Check of {task_id}"
        hint = "A shell command that exits 0 when it is done · Enter: OK (empty removes it) · Esc: back"
        self.app.push_screen(TextPrompt(title, self.state.task(task_id).check, hint=hint, allow_blank=True), done)

    def action_edit_dependencies(self) -> None:
        if (task_id := self._visible_task("d")) is None:
            return
        task = self.state.task(task_id)
        others = [(t.id, t.description) for t in self.state.tasks() if t.id != task_id]
        if not others:
            self.tell(f"There is no other {self.state.noun} to depend on", "warning")
            return

        def done(choice: str | None) -> None:
            if choice:
                edit = edits.remove_dependency if choice in task.dependencies else edits.add_dependency
                self._edit(task_id, edit, task_id, choice)

        self.app.push_screen(dependency_picker(task_id, others, task.dependencies), done)

    def action_add_task(self) -> None:
        was_expanded = self.expanded
        after = self._visible_task("a")
        if not was_expanded:
            return
        noun = self.state.noun

        def done(text: str | None) -> None:
            if text:
                new_id = self.state.add_task(after, text)
                self._after_edit(new_id)

        where = f"after {after}" if after else "at the end"
        self.app.push_screen(TextPrompt(f"New {noun} {where}: its description (t changes its type later)"), done)

    def action_delete_task(self) -> None:
        if (task_id := self._visible_task("x")) is None:
            return
        noun = self.state.noun
        if len(self.state.ids) <= 1:
            self.tell(f"A plan needs at least one {noun}", "warning")
            return
        ids = self.state.ids
        index = ids.index(task_id)
        after = ids[index + 1] if index + 1 < len(ids) else ids[index - 1]
        dependents = [t.id for t in self.state.tasks() if task_id in t.dependencies]
        question = f"Delete {task_id} “{self.state.task(task_id).description}”?"
        if dependents:
            question += f"\n{', '.join(dependents)} will lose this dependency."

        def done(yes: bool | None) -> None:
            if yes:
                self._edit(after, edits.delete_task, task_id)

        self.app.push_screen(Confirm(question), done)

    def action_move_task(self, offset: int) -> None:
        if (task_id := self._visible_task("K" if offset < 0 else "J")) is None:
            return
        if not self._edit(task_id, edits.move_task, task_id, offset):
            self.tell(f"{task_id} is already {'first' if offset < 0 else 'last'}")

    def action_undo(self) -> None:
        focus = self.task_tree.cursor_task_id
        if not self.state.undo():
            self.tell("Nothing to undo")
            return
        self.tell()
        self._refresh_title()
        self._refresh_plan(focus if focus in self.state.ids else None)

    def action_save(self) -> None:
        folder = self.save_dir or data_dir() / "plans"
        try:
            path = self.state.save(folder, self.goal)
        except OSError as exc:
            self.tell(f"Could not save the plan: {exc}", "error")
            return
        warning = " (it has problems: it will not load until they are fixed)" if not self.state.valid else ""
        self.tell(f"Plan saved to {path}{warning}", "warning" if warning else "")
