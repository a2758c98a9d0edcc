"""/skills (P-9.2): the skills the agent can load with ``load_skill`` —
name, description and where each comes from (this workspace's
``.paicli/skills/`` or the config dir's ``skills/``, which applies to every
project). The list is the one the prompts index: found once per session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from paicli_tui.prompting.skills import SKILL_FILE, WORKSPACE_SKILLS

SOURCES = {"workspace": "this workspace", "user": "all projects (config dir)"}
HINT = ("The agent loads a skill with load_skill when a task matches its description; "
        "/plan and /team workers see the list in their prompt · esc close")


class SkillsScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_name("skills_screen.tcss")

    BINDINGS = [Binding("escape,q", "close", "Close", id="skills.close")]

    def __init__(self, skills: list[Any], user_dir: Path | None = None) -> None:
        super().__init__()
        self.skills = skills
        self.user_dir = user_dir

    def compose(self) -> ComposeResult:
        count = len(self.skills)
        with Vertical(id="skills-dialog"):
            yield Static(Content.assemble(("Skills", "bold"), (f"  {count} found", "$text-muted")), id="skills-title")
            yield OptionList(*self._options(), id="skills-list")
            yield Static(Content.styled(HINT, "$text-muted"), id="skills-hint")

    def _options(self) -> list[Option]:
        if not self.skills:
            where = f"{WORKSPACE_SKILLS.as_posix()}/NAME/{SKILL_FILE}"
            user = f" or {self.user_dir}/NAME/{SKILL_FILE} (every project)" if self.user_dir else ""
            return [Option(Content.styled(f"No skills yet: add {where} (this project){user}, "
                                          "a description on its first line", "italic"), disabled=True)]
        width = max(len(skill.name) for skill in self.skills) + 2
        options = []
        for skill in self.skills:
            line = Content.assemble((f"{skill.name:<{width}}", "bold $accent"), skill.description or "(no description)")
            where = Content.styled(f"\n{'':<{width}}{SOURCES.get(skill.source, skill.source)}: {skill.path.as_posix()}",
                                   "$text-muted")
            options.append(Option(Content.assemble(line, where), id=skill.name))
        return options

    def action_close(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
