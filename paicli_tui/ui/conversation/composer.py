"""Where the person writes: the completion menu stacked above the prompt
editor, docked at the bottom of the main screen. It only builds and links
the two; ``prompt_editor.py`` says what they do."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from textual.app import ComposeResult
from textual.containers import Vertical

from paicli_tui.ui.conversation.completion_menu import CompletionMenu
from paicli_tui.ui.conversation.file_mentions import WorkspaceFileIndex
from paicli_tui.ui.conversation.prompt_editor import ArgumentChoices, PromptEditor
from paicli_tui.ui.conversation.prompt_history import PromptHistory


class Composer(Vertical):
    DEFAULT_CSS = """
    Composer {
        height: auto;
    }
    """

    def __init__(self, argument_choices: ArgumentChoices, workspace: Path, *, placeholder: str = "",
                 resources: Callable[[], list[str]] | None = None, editor_id: str = "prompt", **kwargs) -> None:
        super().__init__(**kwargs)
        self.menu = CompletionMenu(id="completion-menu")
        self.editor = PromptEditor(
            argument_choices, menu=self.menu, history=PromptHistory.for_workspace(workspace),
            files=WorkspaceFileIndex(Path(workspace)), resources=resources, placeholder=placeholder, id=editor_id,
        )

    def compose(self) -> ComposeResult:
        yield self.menu
        yield self.editor
