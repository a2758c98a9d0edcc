"""The demo planner: a plan with parallel branches over the workspace, an
amended plan when the person types an amendment, a smaller plan on replan.

Replies are one JSON object, as prompts/modes/planner.md and team-planner.md
ask (P-3.2), so the real parser reads them.
"""

from __future__ import annotations

import json
import re

from paicli_tui.llm.offline.demo_conversation import Conversation
from paicli_tui.llm.offline.demo_findings import shorten

_GOAL = re.compile(r"plan for:\s*(.+)", re.IGNORECASE | re.DOTALL)
_AMENDMENT = re.compile(r"^\s*Amendment:\s*(.+?)\s*$", re.MULTILINE)
_REPLAN = re.compile(r"\bre-?plan|\bremaining (?:work|tasks|steps)\b|\bfailure reason\b|\bfailed because\b", re.IGNORECASE)
# prompts/modes/team-planner.md opens with this heading, planner.md with "## Mode: Planner".
_TEAM_HEADING = re.compile(r"^#+\s*Mode:\s*Team Planner\b", re.IGNORECASE | re.MULTILINE)
_ANY_MODE_HEADING = re.compile(r"^#+\s*Mode:", re.IGNORECASE | re.MULTILINE)


def is_team_planner(conversation: Conversation) -> bool:
    system = conversation.system
    if _ANY_MODE_HEADING.search(system):
        return bool(_TEAM_HEADING.search(system))
    return bool(re.search(r"\bteam\b", system, re.IGNORECASE))  # a user's own prompt files


def planner_reply(conversation: Conversation) -> tuple[str, str]:
    """(reasoning, content) for a planner request."""
    message = conversation.last_user
    team = is_team_planner(conversation)
    unit = "step" if team else "task"
    if _REPLAN.search(message):
        plan = _replan(team)
        thinking = f"Replanning: part of the work is done, so only the remaining {unit}s go in a smaller plan."
    elif _AMENDMENT.search(message):
        amendment = _AMENDMENT.findall(message)[-1]
        plan = _amend(_embedded_plan(message) or _survey_plan(_goal(message), team), amendment, unit)
        thinking = f"The amendment asks: “{shorten(amendment, 80)}”. I keep every other {unit} and add one for it."
    else:
        plan = _survey_plan(_goal(message), team)
        thinking = (
            f"Three independent reads can run side by side, then one {unit} summarises them. "
            "I have no tools here, so the reading goes into the plan."
        )
    return thinking, json.dumps(plan, indent=2, ensure_ascii=False)


def _step(step_id: str, description: str, kind: str = "FILE_READ", dependencies: tuple[str, ...] = ()) -> dict:
    return {"id": step_id, "description": description, "type": kind, "dependencies": list(dependencies)}


def _survey_plan(goal: str, team: bool) -> dict:
    who = "the team" if team else "the plan"
    return {
        "summary": f"Survey the workspace in parallel and summarise it, so {who} can answer: {shorten(goal, 100)}",
        "steps": [
            _step("s1", "Read the README and note its title and main sections"),
            _step("s2", "List the source files and the top-level layout"),
            _step("s3", "Inspect the project configuration (pyproject.toml / package.json / setup.cfg)"),
            _step("s4", "Summarise the project: purpose, layout, how to run", "ANALYSIS", ("s1", "s2", "s3")),
        ],
    }


def _replan(team: bool) -> dict:
    unit = "steps" if team else "tasks"
    return {
        "summary": f"Finish the remaining work with a smaller plan built on the completed {unit}",
        "steps": [
            _step("r1", "List the source files and the top-level layout again"),
            _step("r2", "Read the README and note its title"),
            _step("r3", "Summarise the project from the completed results and these reads", "ANALYSIS", ("r1", "r2")),
        ],
    }


def _amend(plan: dict, amendment: str, unit: str) -> dict:
    """Add one parallel entry for the amendment and make every final entry wait
    for it; everything else stays as it was."""
    steps = [dict(step) for step in plan["steps"]]
    taken = {step["id"] for step in steps}
    number = len(steps) + 1
    while f"a{number}" in taken:
        number += 1
    new_id = f"a{number}"
    needed = {dep for step in steps for dep in step.get("dependencies") or []}
    for step in steps:
        if step["id"] not in needed:
            step["dependencies"] = list(step.get("dependencies") or []) + [new_id]
    steps.append(_step(new_id, f"Address the amendment: {amendment}", _amendment_type(amendment)))
    summary = str(plan.get("summary") or f"The amended {unit} plan")
    return {"summary": f"{summary} (amended: {shorten(amendment, 60)})", "steps": steps}


def _amendment_type(text: str) -> str:
    lowered = text.lower()
    if re.search(r"\b(test|verify|check)", lowered):
        return "VERIFICATION"
    if re.search(r"\b(read|look|inspect|list)", lowered):
        return "FILE_READ"
    return "ANALYSIS"


def _embedded_plan(message: str) -> dict | None:
    """The current plan the amendment request carries as JSON, if readable."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", message):
        try:
            value, _ = decoder.raw_decode(message, match.start())
        except json.JSONDecodeError:
            continue
        entries = value.get("steps") or value.get("tasks") if isinstance(value, dict) else None
        readable = isinstance(entries, list) and all(isinstance(e, dict) and isinstance(e.get("id"), str) for e in entries)
        if readable and entries:
            steps = [
                {
                    "id": e["id"],
                    "description": e.get("description", ""),
                    "type": e.get("type", "ANALYSIS"),
                    "dependencies": list(e["dependencies"]) if isinstance(e.get("dependencies"), list) else [],
                }
                for e in entries
            ]
            return {"summary": value.get("summary", ""), "steps": steps}
    return None


def _goal(message: str) -> str:
    match = _GOAL.search(message)
    text = match.group(1) if match else message
    text = _AMENDMENT.split(text)[0] if _AMENDMENT.search(text) else text
    return " ".join(text.split()) or "describe this project"
