"""Small modal dialogs for the plan review screen (P-4.2, P-4.3): a text
prompt (amendment, description, new task), a type picker and a dependency
picker; the yes/no confirmation is the shared ``ui/common/dialogs.Confirm``.
Each dismisses with its answer, or None when the person presses Esc."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from paicli_tui.plan.model import TaskType
from paicli_tui.ui.common.dialogs import ModalDialog, dialog_text


class TextPrompt(ModalDialog):
    """One line of text; Enter answers with it (blank answers are refused)."""

    def __init__(
        self, title: str, value: str = "", placeholder: str = "", hint: str = "Enter: OK · Esc: back",
        allow_blank: bool = False,
    ) -> None:
        super().__init__()
        self.allow_blank = allow_blank
        self.title_text = title
        self.value = value
        self.placeholder = placeholder
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical():
            yield dialog_text(self.title_text).add_class("dialog-title")
            # Editing, not replacing: keep the text and put the cursor at its end.
            yield Input(self.value, placeholder=self.placeholder, id="answer", select_on_focus=False)
            yield dialog_text(self.hint).add_class("dialog-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not event.value.strip() and not self.allow_blank:
            self.notify("Type some text first (Esc goes back)", severity="warning", markup=False)
            return
        self.dismiss(event.value.strip())


class ChoicePicker(ModalDialog):
    """Pick one of several options; answers with the option's id."""

    def __init__(self, title: str, options: list[tuple[str, str]], current: str | None = None, hint: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.options = options
        self.current = current
        self.hint = hint or "Enter: choose · Esc: back"

    def compose(self) -> ComposeResult:
        with Vertical():
            yield dialog_text(self.title_text).add_class("dialog-title")
            yield OptionList(*(Option(Text(label), id=key) for key, label in self.options), id="choices")
            yield dialog_text(self.hint).add_class("dialog-hint")

    def on_mount(self) -> None:
        choices = self.query_one(OptionList)
        if self.current is not None:
            try:
                choices.highlighted = choices.get_option_index(self.current)
            except Exception:  # an unknown current value: start at the top
                choices.highlighted = 0
        choices.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)


def type_picker(task_id: str, current: str) -> ChoicePicker:
    options = [(member.value, member.value) for member in TaskType]
    return ChoicePicker(f"Type of {task_id}", options, current)


def dependency_picker(task_id: str, candidates: list[tuple[str, str]], current: list[str]) -> ChoicePicker:
    """Each other task with a box: choosing one adds or removes it."""
    options = [
        (other, f"{'☑' if other in current else '☐'} {other}  {description}") for other, description in candidates
    ]
    return ChoicePicker(
        f"{task_id} needs (☑) …",
        options,
        current=next((other for other, _ in candidates if other in current), None),
        hint="Enter: add or remove the chosen dependency · Esc: back",
    )
