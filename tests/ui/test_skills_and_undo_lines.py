"""/skills as a Pilot test (the list, the empty state, Esc), and the
transcript's lines about what /undo can and cannot take back."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList

from paicli_tui import events as ev
from paicli_tui.prompting.skills import Skill
from paicli_tui.ui.conversation.main_screen import MainScreen
from paicli_tui.ui.skills.skills_screen import SkillsScreen
from tests.ui.conftest import settle, submit, transcript_text


def rows(screen) -> list[str]:
    options = screen.query_one("#skills-list", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_skills_lists_name_description_and_source_and_esc_closes(app, session):
    session.skill_list = [Skill("release", "Cut a release.", Path(".paicli/skills/release/SKILL.md")),
                          Skill("review", "Review a diff.", Path("/home/me/.config/paicli/skills/review/SKILL.md"))]
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "/skills")
        await settle(pilot)
        assert isinstance(app.screen, SkillsScreen)
        first, second = rows(app.screen)
        assert first.startswith("release") and "Cut a release." in first
        assert "this workspace: .paicli/skills/release/SKILL.md" in first
        assert "all projects (config dir): /home/me/.config/paicli/skills/review/SKILL.md" in second
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_skills_without_any_says_where_to_add_one(app):
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "/skills")
        await settle(pilot)
        (only,) = rows(app.screen)
        assert "No skills yet: add .paicli/skills/NAME/SKILL.md" in only


async def test_a_run_that_ran_commands_says_undo_cannot_cover_them(app, session):
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        session.bus.publish(ev.RunChangesRecorded("session", "r1", ("src/app.py",), ("react",)))
        session.bus.publish(ev.RunChangesRecorded("session", "r2", (), ("task_2",)))
        session.bus.publish(ev.ChangesReverted("session", "r1", "", ("src/app.py",), (), ("README.md",)))
        await settle(pilot)
        text = transcript_text(app)
    assert ("1 file changed (src/app.py) · /undo reverts · commands ran (react): what they changed is not "
            "tracked by /undo") in text
    assert "commands ran (task_2): what they changed is not tracked by /undo" in text
    assert "↶ undo: restored src/app.py; kept README.md (changed since)" in text


async def test_help_lists_undo_and_skills(app):
    from paicli_tui.ui.help.help_screen import HelpScreen

    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "/help")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.help_text()
    assert "/undo" in text and "/skills" in text and "Undo" in text
