"""The compact local profile's prompts: short, shared, and only the tools a
task needs.

A small model on a local server reads its prompt at some 50 tokens a
second on two cores, so every token of a worker's prompt is time before its
first reply; the full prompt with every tool's schema is near 3,000
tokens. Here a worker's request is bounded at ``WORKER_PROMPT_TOKENS``
tokens including its tool schemas: a few lines of rules
(``prompts/compact/``), the tools its task type needs with one-line
descriptions and no parameter prose.

Every worker of a run starts with the same bytes (base, mode, project
context) and only then its own part (task type, tool list), so the
server's prompt cache serves the common prefix once per run.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from paicli_tui.prompting.assembler import PromptAssembler

#: The bound of a worker's system prompt plus its tool schemas, in tokens.
WORKER_PROMPT_TOKENS = 1_500
#: PAI.md beyond this many characters is cut in the compact prompt, so one
#: file cannot break the bound.
PROJECT_CHARS = 1_200
DESCRIPTION_CHARS = 80
COMPACT_ROLES = ("react", "task", "team-worker")
#: The tool-less roles with a compact prompt: the full planner prompt is
#: near 1,100 tokens, some 20 s of a local server's time before its first
#: token, taken from the run's budget before any task starts.
PLANNER_ROLES = ("planner", "team-planner")

#: The built-in tools the profile picks from; any other tool (an MCP
#: server's, load_skill) is there because the person set it up, and stays
#: offered.
CHOSEN_TOOLS = frozenset({"read_file", "list_dir", "glob_files", "grep_code", "write_file", "edit_file",
                          "execute_command", "web_fetch", "web_search", "search_code", "code_graph",
                          "save_memory", "search_memory", "revert_turn"})
_READ = ("read_file", "list_dir", "glob_files", "grep_code", "search_code", "code_graph", "save_memory", "search_memory")
#: The tools each task type needs. A team step is given its type's tools
#: too; a team worker before its first step gets ``WORKER_TOOLS``.
TOOLS_BY_TYPE: dict[str, tuple[str, ...]] = {
    "FILE_READ": _READ,
    "ANALYSIS": _READ,
    "FILE_WRITE": ("read_file", "list_dir", "write_file", "edit_file"),
    "COMMAND": ("read_file", "list_dir", "execute_command"),
    "VERIFICATION": ("read_file", "grep_code", "execute_command"),
}
WORKER_TOOLS = ("read_file", "list_dir", "grep_code", "write_file", "edit_file", "execute_command")


def tools_for(role: str, task_type: str | None = None) -> frozenset[str] | None:
    """The tool names offered to ``role`` (None: every tool, for ReAct,
    whose requests the person writes)."""
    if task_type is not None:
        return frozenset(TOOLS_BY_TYPE[str(getattr(task_type, "value", task_type)).upper()])
    if role == "team-worker":
        return frozenset(WORKER_TOOLS)
    return None


def one_line(text: str) -> str:
    """The first sentence, cut at a clause or a word when longer than
    ``DESCRIPTION_CHARS``."""
    first = " ".join(str(text).split()).split(". ")[0].rstrip(".")
    if len(first) <= DESCRIPTION_CHARS:
        return first
    head = first[:DESCRIPTION_CHARS]
    for mark in (":", ";", " (", " —", ","):
        if mark in head[20:]:
            return head[: head.index(mark, 20)].rstrip()
    return head.rsplit(" ", 1)[0]


def compact_schema(tool: dict) -> dict:
    """``tool`` with a one-line description and no parameter descriptions
    (names, types, bounds and required fields stay: a grammar is built
    from them)."""
    function = dict(tool.get("function") or tool)
    function["description"] = one_line(function.get("description", ""))
    parameters = dict(function.get("parameters") or {"type": "object", "properties": {}})
    parameters["properties"] = {
        name: {key: value for key, value in spec.items() if key != "description"}
        for name, spec in (parameters.get("properties") or {}).items()
    }
    function["parameters"] = parameters
    return {"type": "function", "function": function} if "function" in tool else function


def tool_view(names: frozenset[str] | None) -> Callable[[list[dict]], list[dict]]:
    """What a compact agent is offered of its registry's schemas."""

    def view(schemas: list[dict]) -> list[dict]:
        return [compact_schema(s) for s in schemas if offered(names, (s.get("function") or s)["name"])]

    return view


def offered(names: frozenset[str] | None, name: str) -> bool:
    return names is None or name in names or name not in CHOSEN_TOOLS


def compact_prompt(assembler: "PromptAssembler", role: str, *, task_type: str | None = None) -> str:
    """The compact system prompt: shared rules, the role's mode, the project
    context (cut), skills, then the task type, the one part that differs
    between workers of a run (the MCP resource index, when a run has one,
    stays the last section as in the full prompt)."""
    if role not in COMPACT_ROLES:
        raise ValueError(f"no compact prompt for role {role!r}; compact roles: {', '.join(COMPACT_ROLES)}")
    parts = [assembler.prompt_file("compact/base.md"), assembler.prompt_file(f"compact/{role}.md")]
    parts.append(project_section(assembler))
    if role != "react":
        parts.append(assembler.skills_index())
    if task_type is not None:
        parts.append(f"## Task Type\n\n{str(getattr(task_type, 'value', task_type)).upper()}")
    parts.append(assembler.resource_index())
    return "\n\n".join(part.strip() for part in parts if part.strip()) + "\n"


def compact_planner_prompt(assembler: "PromptAssembler", role: str) -> str:
    """The compact planner prompt: the plan rules in a few lines (the
    schema, sent as a grammar where the server takes one, holds the form),
    then the project context, cut as for workers."""
    if role not in PLANNER_ROLES:
        raise ValueError(f"no compact planner prompt for role {role!r}; planner roles: {', '.join(PLANNER_ROLES)}")
    parts = [assembler.prompt_file(f"compact/{role}.md")]
    parts.append(project_section(assembler))
    return "\n\n".join(part.strip() for part in parts if part.strip()) + "\n"


def project_section(assembler: "PromptAssembler") -> str:
    """PAI.md under a heading, cut at ``PROJECT_CHARS`` ("" when none)."""
    project = assembler.project_text()
    if not project:
        return ""
    return "## Project\n\n" + (project if len(project) <= PROJECT_CHARS else project[:PROJECT_CHARS] + "\n…")


def request_text(system_prompt: str, schemas: list[dict]) -> str:
    """What the bound counts when the server is sent ``tools``: the system
    prompt and the tool schemas as JSON. (In union mode the schemas become
    the grammar and the prompt holds a line per tool instead.)"""
    return system_prompt + "\n" + json.dumps(schemas, ensure_ascii=False)
