"""load_skill (P-9.2): a skill's body, by its name in the ``## Skills`` index,
added to the conversation as a message of its own right after the tool
results. The list of skills is the one the index was built from, looked up
once per session, so the prompt and the tool never disagree."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any, Callable

from paicli_tui.events import SkillLoaded
from paicli_tui.prompting.skills import Skill, body, neutral, open_skill_file
from paicli_tui.tools.base import Tool, ToolContext, ToolError, ToolResult, object_schema

#: A skill file larger than this is refused (the body is cut far below it anyway).
MAX_FILE_BYTES = 256 * 1024


def skill_message(skill: Skill, text: str) -> str:
    """The message the body arrives in: tagged, so the model (and a person
    reading the ledger) can tell it from the person's own words."""
    attrs = " ".join(f'{key}="{html.escape(value, quote=True)}"' for key, value in
                     (("name", skill.name), ("source", skill.source), ("file", skill.path.as_posix())))
    return f"<paicli-skill {attrs}>\n{neutral(text)}\n</paicli-skill>"


class LoadSkill(Tool):
    name = "load_skill"
    description = ("Load a skill by its name from the Skills index. Its instructions arrive as the next message, "
                   "right after this result; follow them for the task.")
    parameters = object_schema({
        "name": {"type": "string", "minLength": 1, "description": "The skill's name as the Skills index lists it."},
    }, ["name"])

    def __init__(self, workspace: Path, skills: Callable[[], list[Skill]]) -> None:
        super().__init__(workspace)
        self._skills = skills

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        known = {skill.name: skill for skill in self._skills()}
        wanted = args["name"].strip()
        skill = known.get(wanted)
        if skill is None:
            names = ", ".join(sorted(known)) or "none (add one as .paicli/skills/NAME/SKILL.md)"
            raise ToolError(f"unknown skill {wanted!r}; known skills: {names}")
        text = body(self._read(skill))
        if ctx.bus is not None:
            ctx.bus.publish(SkillLoaded(ctx.actor, ctx.call_id, skill.name, skill.source, skill.path.as_posix(),
                                        len(text)))
        where = f"{skill.source}: {skill.path.as_posix()}"
        return ToolResult(True, f"loaded skill {skill.name} ({where}); its instructions follow as the next message",
                          f"loaded skill {skill.name}", follow_up=skill_message(skill, text))

    def _read(self, skill: Skill) -> str:
        shown = skill.path.as_posix()
        try:
            with open_skill_file(skill, self.workspace) as handle:  # never through a symbolic link
                data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise ToolError(f"skill {skill.name}: {shown} cannot be read ({exc.strerror or type(exc).__name__})") from None
        if len(data) > MAX_FILE_BYTES:
            raise ToolError(f"skill {skill.name}: {shown} is over {MAX_FILE_BYTES // 1024} KiB")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise ToolError(f"skill {skill.name}: {shown} is not UTF-8 text") from None
