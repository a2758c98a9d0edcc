"""The prompt assembler (P-2): section order, tool-section stripping, PAI.md,
skills index, overrides, byte-identical prompts and the turn context."""

from __future__ import annotations

import re
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from paicli_tui.config import resources
from paicli_tui.prompting.assembler import (
    ROLES,
    TOOL_LESS_ROLES,
    PromptAssembler,
    turn_context,
    with_turn_context,
)
from paicli_tui.prompting.sections import replace_sections, split_sections, take_section

TOOL_ROLES = [r for r in ROLES if r not in TOOL_LESS_ROLES]
MODE_HEADINGS = {
    "react": "## Mode: Interactive Agent",
    "planner": "## Mode: Planner",
    "task": "## Mode: Plan Task",
    "team-planner": "## Mode: Team Planner",
    "team-worker": "## Mode: Team Worker",
    "team-reviewer": "## Mode: Team Reviewer",
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def user_prompts(paicli_home: Path) -> Path:
    """The default override folder: <config dir>/prompts under PAICLI_HOME."""
    folder = paicli_home / "prompts"
    (folder / "modes").mkdir(parents=True)
    return folder


def add_skill(root: Path, name: str, text: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(text, encoding="utf-8")


def heading_lines(prompt: str) -> list[str]:
    return [line for line in prompt.splitlines() if line.startswith("## ")]


def packaged(relative: str) -> str:
    return (resources.packaged_dir("prompts") / relative).read_text(encoding="utf-8")


# -- order -----------------------------------------------------------------------


def test_sections_go_from_stable_to_changing(workspace, paicli_home):
    (workspace / "PAI.md").write_text("Use Python 3.11.\n", encoding="utf-8")
    add_skill(workspace / ".paicli" / "skills", "release", "Cut a release.\n")
    prompt = PromptAssembler(workspace).system_prompt("task", task_type="COMMAND")
    markers = [
        "# PaiCLI",
        "## Tools",
        "## Tool Policy",
        "## Persona",
        "## Mode: Plan Task",
        "## Approval Rules",
        "## Output Format",
        "## Skills",
        "## Project Context",
        "## Task Type",
    ]
    # Headings as whole lines: the task prompt mentions `## Task Type` in its text.
    positions = [prompt.index(m) if m == "# PaiCLI" else prompt.index(f"\n{m}\n") for m in markers]
    assert positions == sorted(positions), dict(zip(markers, positions))
    assert prompt.startswith(packaged("base.md").strip())
    assert prompt.rstrip().endswith("## Task Type\n\nCOMMAND")
    assert prompt.count("## Output Format") == 1


def test_output_format_moves_after_approval_rules_for_every_tool_role(workspace):
    assembler = PromptAssembler(workspace)
    for role in TOOL_ROLES:
        headings = heading_lines(assembler.system_prompt(role))
        assert headings.index("## Approval Rules") + 1 == headings.index("## Output Format"), role
        assert headings.index(MODE_HEADINGS[role]) < headings.index("## Approval Rules"), role


# -- tool-less roles ---------------------------------------------------------------


@pytest.mark.parametrize("role", sorted(TOOL_LESS_ROLES))
def test_tool_less_roles_lose_tool_sections_and_gain_tool_availability(workspace, role):
    add_skill(workspace / ".paicli" / "skills", "lint", "Run the linters.\n")
    (workspace / "PAI.md").write_text("House rules.\n", encoding="utf-8")
    prompt = PromptAssembler(workspace).system_prompt(role, approval_mode="ask")
    headings = heading_lines(prompt)
    assert "## Tools" not in headings and "## Tool Policy" not in headings
    assert "`execute_command`:" not in prompt  # the tool list went with its section
    assert headings.count("## Tool Availability") == 1
    # It takes the place the tool sections had in base.md.
    assert headings.index("## Ground Rules") + 1 == headings.index("## Tool Availability")
    assert headings.index("## Tool Availability") < headings.index("## Persona")
    assert "## Approval Rules" not in headings
    assert "## Skills" not in headings
    assert "House rules." in prompt
    assert headings[-1] == "## Project Context"


def test_tool_availability_says_what_to_do_instead(workspace):
    assembler = PromptAssembler(workspace)
    for role in ("planner", "team-planner"):
        section, _ = take_section(assembler.system_prompt(role), "Tool Availability")
        assert "plan steps for" in section and "workers" in section
    section, _ = take_section(assembler.system_prompt("team-reviewer"), "Tool Availability")
    assert "judge from the task and result you are given" in section.lower()
    assert "`issues`" in section and "evidence is missing" in section


@pytest.mark.parametrize("role", TOOL_ROLES)
def test_tool_roles_keep_tools_and_policy(workspace, role):
    prompt = PromptAssembler(workspace).system_prompt(role)
    headings = heading_lines(prompt)
    assert "## Tools" in headings and "## Tool Policy" in headings
    assert "## Tool Availability" not in headings
    assert '<tool-result trust="untrusted-data">' in prompt


def test_tool_sections_are_stripped_from_an_override_too(workspace, user_prompts):
    (user_prompts / "calm.md").write_text("## Persona\n\nTerse.\n\n## Tools\n\n- `rm_rf`: nope\n", encoding="utf-8")
    prompt = PromptAssembler(workspace).system_prompt("team-reviewer")
    assert "Terse." in prompt and "rm_rf" not in prompt


# -- project context and skills ----------------------------------------------------


def test_pai_md_is_included_verbatim_and_missing_means_no_section(workspace):
    assert "## Project Context" not in PromptAssembler(workspace).system_prompt("react")
    rules = "# Team rules\n\n- Run `make check` after edits.\n- 中文注释 are fine.\n"
    (workspace / "PAI.md").write_text(rules, encoding="utf-8")
    prompt = PromptAssembler(workspace).system_prompt("react")
    _, after = prompt.split("## Project Context", 1)
    assert rules.strip() in after


def test_blank_pai_md_is_omitted(workspace):
    (workspace / "PAI.md").write_text("  \n\n", encoding="utf-8")
    assert "## Project Context" not in PromptAssembler(workspace).system_prompt("react")


@pytest.mark.parametrize("make_bad", ["directory", "not-utf8"])
def test_unreadable_pai_md_is_left_out_with_a_warning(workspace, make_bad):
    if make_bad == "directory":
        (workspace / "PAI.md").mkdir()
    else:
        (workspace / "PAI.md").write_bytes(b"rules \xff\xfe\x80")
    assembler = PromptAssembler(workspace)
    prompt = assembler.system_prompt("react")
    assert "## Project Context" not in prompt
    assert len(assembler.warnings) == 1 and "PAI.md" in assembler.warnings[0]


def test_skills_index_lists_workspace_and_user_skills_sorted(workspace, paicli_home):
    add_skill(paicli_home / "skills", "zeta", "# Zeta\n\nDeploys to staging.\nMore text.\n")
    add_skill(paicli_home / "skills", "shared", "User version.\n")
    add_skill(workspace / ".paicli" / "skills", "shared", "Project version.\n")
    add_skill(
        workspace / ".paicli" / "skills",
        "alpha",
        '---\nname: alpha\ndescription: "Writes changelogs"\n---\n# Alpha\nBody.\n',
    )
    (workspace / ".paicli" / "skills" / "no-file").mkdir()
    prompt = PromptAssembler(workspace).system_prompt("team-worker")
    section, _ = take_section(prompt, "Skills")
    items = [line for line in section.splitlines() if line.startswith("- ")]
    assert items == [
        "- alpha: Writes changelogs (`.paicli/skills/alpha/SKILL.md`)",
        "- shared: Project version. (`.paicli/skills/shared/SKILL.md`)",
        f"- zeta: Deploys to staging. (`{(paicli_home / 'skills' / 'zeta' / 'SKILL.md').as_posix()}`)",
    ]


def test_skills_only_for_workers_by_default(workspace):
    add_skill(workspace / ".paicli" / "skills", "lint", "Run the linters.\n")
    assembler = PromptAssembler(workspace)
    assert "## Skills" in assembler.system_prompt("task")
    assert "## Skills" in assembler.system_prompt("team-worker")
    assert "## Skills" not in assembler.system_prompt("react")
    assert "## Skills" in assembler.system_prompt("react", with_skills=True)
    assert "## Skills" not in assembler.system_prompt("team-worker", with_skills=False)


def test_no_skills_means_no_section(workspace):
    assert "## Skills" not in PromptAssembler(workspace).system_prompt("team-worker")


# -- overrides ---------------------------------------------------------------------


def test_user_override_replaces_whole_files(workspace, user_prompts):
    (user_prompts / "calm.md").write_text("## Persona\n\nCheerful pirate.\n", encoding="utf-8")
    (user_prompts / "modes" / "react.md").write_text("## Mode: Mine\n\nMy react rules.\n", encoding="utf-8")
    assembler = PromptAssembler(workspace)
    prompt = assembler.system_prompt("react")
    assert "Cheerful pirate." in prompt and "Calm, precise" not in prompt
    assert "My react rules." in prompt and "## Mode: Interactive Agent" not in prompt
    assert "Calm, precise" not in assembler.system_prompt("planner")
    assert assembler.warnings == []


def test_explicit_user_prompts_dir_wins_over_the_config_dir(workspace, tmp_path, user_prompts):
    (user_prompts / "calm.md").write_text("## Persona\n\nFrom config.\n", encoding="utf-8")
    other = tmp_path / "other"
    other.mkdir()
    (other / "calm.md").write_text("## Persona\n\nFrom elsewhere.\n", encoding="utf-8")
    prompt = PromptAssembler(workspace, user_prompts_dir=other).system_prompt("react")
    assert "From elsewhere." in prompt and "From config." not in prompt


@pytest.mark.parametrize("make_bad", ["directory", "not-utf8"])
def test_unreadable_override_falls_back_to_packaged_with_a_warning(workspace, user_prompts, make_bad):
    target = user_prompts / "modes" / "team-worker.md"
    if make_bad == "directory":
        target.mkdir()
    else:
        target.write_bytes(b"\xff\xfe broken")
    assembler = PromptAssembler(workspace)
    prompt = assembler.system_prompt("team-worker")
    assert "## Mode: Team Worker" in prompt
    assert len(assembler.warnings) == 1
    assert "team-worker.md" in assembler.warnings[0] and "packaged" in assembler.warnings[0]


def test_override_without_tool_availability_gets_the_packaged_one(workspace, user_prompts):
    (user_prompts / "modes" / "planner.md").write_text(
        "## Mode: My Planner\n\nPlan well.\n\n## Output Format\n\nJSON please.\n", encoding="utf-8"
    )
    assembler = PromptAssembler(workspace)
    prompt = assembler.system_prompt("planner")
    assert "Plan well." in prompt and "JSON please." in prompt
    assert heading_lines(prompt).count("## Tool Availability") == 1
    assert any("Tool Availability" in w for w in assembler.warnings)


# -- byte-identical prompts (P-2.4) and no clock in them -----------------------------


def test_prompt_is_byte_identical_across_calls_and_instances(workspace):
    (workspace / "PAI.md").write_text("Rules v1.\n", encoding="utf-8")
    add_skill(workspace / ".paicli" / "skills", "lint", "Run the linters.\n")
    first = PromptAssembler(workspace)
    second = PromptAssembler(workspace)
    for role in ROLES:
        a = first.system_prompt(role).encode()
        assert first.system_prompt(role).encode() == a
        assert second.system_prompt(role).encode() == a
    # An agent editing PAI.md or a skill mid-run does not change this run's prompts.
    before = first.system_prompt("team-worker")
    (workspace / "PAI.md").write_text("Rules v2.\n", encoding="utf-8")
    add_skill(workspace / ".paicli" / "skills", "new", "Added later.\n")
    assert first.system_prompt("team-worker") == before
    assert "Rules v2." in PromptAssembler(workspace).system_prompt("team-worker")


def test_prompt_is_identical_from_many_threads(workspace):
    assembler = PromptAssembler(workspace)
    results: list[str] = []
    def build() -> None:
        results.append(assembler.system_prompt("team-worker"))

    threads = [threading.Thread(target=build) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert len(results) == 8 and len(set(results)) == 1


def test_no_date_or_time_in_any_system_prompt(workspace):
    (workspace / "PAI.md").write_text("Rules.\n", encoding="utf-8")
    assembler = PromptAssembler(workspace)
    now = datetime.now()
    weekdays = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    for role in ROLES:
        for mode in ("auto", "ask", "plan"):
            prompt = assembler.system_prompt(role, approval_mode=mode)
            assert not re.search(r"\d{4}-\d{2}-\d{2}|\b\d{1,2}:\d{2}\b", prompt), role
            assert str(now.year) not in prompt
            assert not any(day in prompt for day in weekdays)
            assert "Date:" not in prompt and "Time zone:" not in prompt


def test_approval_rules_follow_the_mode(workspace):
    assembler = PromptAssembler(workspace)
    auto = assembler.system_prompt("react", approval_mode="auto")
    ask = assembler.system_prompt("react", approval_mode="ask")
    assert "[AUTO] denied:" in auto and "[AUTO] denied:" not in ask
    assert "waits for the user's approval" in ask
    assert assembler.system_prompt("react", approval_mode="plan") == auto
    assert assembler.system_prompt("planner", approval_mode="ask") == assembler.system_prompt("planner")


# -- bad arguments -------------------------------------------------------------------


def test_unknown_role_names_the_valid_roles(workspace):
    with pytest.raises(ValueError) as err:
        PromptAssembler(workspace).system_prompt("coder")
    message = str(err.value)
    assert "'coder'" in message and all(role in message for role in ROLES)


def test_bad_arguments_raise_clear_errors(workspace):
    assembler = PromptAssembler(workspace)
    with pytest.raises(ValueError, match="approval mode 'yolo'"):
        assembler.system_prompt("react", approval_mode="yolo")
    with pytest.raises(ValueError, match="only for role 'task'"):
        assembler.system_prompt("react", task_type="COMMAND")
    with pytest.raises(ValueError, match="unknown task type 'DANCE'"):
        assembler.system_prompt("task", task_type="DANCE")
    with pytest.raises(ValueError, match="no tools"):
        assembler.system_prompt("planner", with_skills=True)


def test_task_type_is_case_insensitive_and_only_in_task_prompts(workspace):
    assembler = PromptAssembler(workspace)
    assert assembler.system_prompt("task", task_type="file_write") == assembler.system_prompt(
        "task", task_type="FILE_WRITE"
    )
    assert "## Task Type" not in heading_lines(assembler.system_prompt("task"))


# -- turn context --------------------------------------------------------------------


def test_turn_context_in_utc():
    now = datetime(2026, 12, 2, 11, 30, 59, tzinfo=timezone.utc)
    assert turn_context(now) == (
        "<paicli-turn-context>\nDate: 2026-12-02 (Wednesday)\nTime: 11:30\nTime zone: UTC\n</paicli-turn-context>"
    )


def test_turn_context_names_the_zone_and_its_offset():
    taipei = datetime(2026, 11, 9, 8, 5, tzinfo=timezone(timedelta(hours=8), "CST"))
    assert "Date: 2026-11-09 (Monday)\nTime: 08:05\nTime zone: CST (UTC+08:00)\n" in turn_context(taipei)
    unnamed = datetime(2026, 1, 1, 0, 0, tzinfo=timezone(timedelta(hours=-3, minutes=-30)))
    assert "Time zone: UTC-03:30\n" in turn_context(unnamed)


def test_turn_context_defaults_to_local_now():
    block = turn_context()
    assert re.fullmatch(
        r"<paicli-turn-context>\nDate: \d{4}-\d{2}-\d{2} \([A-Z][a-z]+day\)\nTime: \d{2}:\d{2}\n"
        r"Time zone: .+\n</paicli-turn-context>",
        block,
    )


def test_with_turn_context_opens_the_message():
    now = datetime(2026, 12, 2, 11, 30, tzinfo=timezone.utc)
    assert with_turn_context("List the files.", now) == turn_context(now) + "\n\nList the files."


# -- section splitting -----------------------------------------------------------------


def test_sections_ignore_headings_inside_code_fences():
    text = "# Top\n\nintro\n\n## Tools\n\n```md\n## Not a heading\n```\n\n### Sub\n\nx\n\n## Next\n\ny\n"
    titles = [c.title for c in split_sections(text)]
    assert titles == [None, "Tools", "Next"]
    assert "".join(c.text for c in split_sections(text)) == text
    section, rest = take_section(text, "tools")
    assert "## Not a heading" in section and "### Sub" in section
    assert rest == "# Top\n\nintro\n\n## Next\n\ny\n"
    replaced = replace_sections(text, ("Tools",), "## Instead\n\nz\n")
    assert replaced == "# Top\n\nintro\n\n## Instead\n\nz\n\n## Next\n\ny\n\n"


def test_pinned_task_types_match_the_plan_model():
    from paicli_tui.plan.model import TaskType
    from paicli_tui.prompting.assembler import TASK_TYPES

    assert TASK_TYPES == tuple(member.value for member in TaskType)


def test_a_task_type_member_selects_the_same_prompt_as_its_name(workspace):
    from paicli_tui.plan.model import TaskType

    assembler = PromptAssembler(workspace)
    assert assembler.system_prompt("task", task_type=TaskType.COMMAND) == assembler.system_prompt(
        "task", task_type="COMMAND")
    assert "## Task Type\n\nCOMMAND" in assembler.system_prompt("task", task_type=TaskType.COMMAND)
