"""System prompts assembled from the Markdown files in ``prompts/`` (P-2).

Sections go from never-changing to often-changing so a server can reuse the
prompt prefix: base → persona → mode → approval rules → output format →
(workers) skills index → project context (``PAI.md``) → task type → (tool
roles, when MCP servers offer resources) the MCP resource index. Every file,
``PAI.md`` and the skills index are read once per assembler and every prompt is
cached, so one agent's system prompt is byte-identical across its calls even
if the files change mid-run (P-2.4). Date and time never enter the system
prompt; they open the turn's first user message (``with_turn_context``).
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from pathlib import Path

from paicli_tui.config import resources
from paicli_tui.config.paths import config_dir
from paicli_tui.config.presets import MODES
from paicli_tui.prompting.sections import replace_sections, take_section
from paicli_tui.prompting.skills import Skill, discover_skills, index_lines

#: The plan's task types (P-3.1), pinned here because prompting sits below
#: plans; a test holds this tuple equal to ``plan.model.TaskType``.
TASK_TYPES = ("FILE_READ", "FILE_WRITE", "COMMAND", "ANALYSIS", "VERIFICATION")
ROLES = ("react", "planner", "task", "team-planner", "team-worker", "team-reviewer")
TOOL_LESS_ROLES = frozenset({"planner", "team-planner", "team-reviewer"})
#: Roles that get the skills index unless the caller says otherwise.
SKILL_ROLES = frozenset({"task", "team-worker"})
APPROVAL_MODES = MODES
#: ``plan`` approves like ``auto`` (P-6.5); tool-less roles get no approval rules.
_APPROVAL_FILES = {"auto": "approval-auto.md", "ask": "approval-ask.md", "plan": "approval-auto.md"}

TOOL_SECTIONS = ("Tools", "Tool Policy")
TOOL_AVAILABILITY = "Tool Availability"
OUTPUT_FORMAT = "Output Format"
PROJECT_FILE = "PAI.md"
#: A larger PAI.md is cut so one file cannot crowd out the conversation.
MAX_PROJECT_CHARS = 20_000


class PromptError(Exception):
    """A packaged prompt file is missing or unreadable (a broken install)."""


class PromptAssembler:
    def __init__(
        self,
        workspace: Path,
        *,
        user_prompts_dir: Path | None = None,
        user_skills_dir: Path | None = None,
    ) -> None:
        self.workspace = Path(workspace)
        self.packaged_dir = resources.packaged_dir("prompts")
        self.user_prompts_dir = Path(user_prompts_dir) if user_prompts_dir else resources.user_dir("prompts")
        self.user_skills_dir = Path(user_skills_dir) if user_skills_dir else config_dir() / "skills"
        #: One line per problem met while reading files; never raised.
        self.warnings: list[str] = []
        self._files: dict[str, str] = {}
        self._prompts: dict[tuple, str] = {}
        self._project: str | None = None
        self._skills: str | None = None
        self._found_skills: list[Skill] | None = None
        self._mcp_resources: tuple[str, ...] = ()
        self._lock = threading.RLock()

    def set_mcp_resources(self, lines: list[str]) -> None:
        """The ``## MCP Resources`` index (one line per resource) for prompts
        assembled from now on. A run sets it once as it begins, so every agent
        of the run gets the same index and an agent's prompt never changes
        under it (P-2.4)."""
        with self._lock:
            self._mcp_resources = tuple(lines)

    def system_prompt(
        self,
        role: str,
        *,
        approval_mode: str = "auto",
        task_type: str | None = None,
        with_skills: bool | None = None,
    ) -> str:
        if role not in ROLES:
            raise ValueError(f"unknown prompt role {role!r}; valid roles: {', '.join(ROLES)}")
        if approval_mode not in APPROVAL_MODES:
            raise ValueError(f"unknown approval mode {approval_mode!r}; valid modes: {', '.join(APPROVAL_MODES)}")
        if task_type is not None and role != "task":
            raise ValueError(f"task_type is only for role 'task', not {role!r}")
        if with_skills and role in TOOL_LESS_ROLES:
            raise ValueError(f"role {role!r} has no tools, so it gets no skills index")
        kind = _task_type(task_type) if task_type is not None else None
        skills = role in SKILL_ROLES if with_skills is None else with_skills
        with self._lock:
            resources = self._mcp_resources if role not in TOOL_LESS_ROLES else ()
            key = (role, approval_mode, kind, skills, resources)
            if key not in self._prompts:
                self._prompts[key] = self._assemble(role, approval_mode, kind, skills, resources)
            return self._prompts[key]

    def _assemble(self, role: str, approval_mode: str, kind: str | None, skills: bool,
                  resources: tuple[str, ...] = ()) -> str:
        base = self._file("base.md")
        persona = self._file("calm.md")
        mode_file = f"modes/{role}.md"
        mode = self._file(mode_file)
        approval = ""
        if role in TOOL_LESS_ROLES:
            availability, mode = take_section(mode, TOOL_AVAILABILITY)
            if availability is None:
                availability = self._packaged_availability(mode_file)
            base = replace_sections(base, TOOL_SECTIONS, availability)
            persona = replace_sections(persona, TOOL_SECTIONS)
            mode = replace_sections(mode, TOOL_SECTIONS)
        else:
            approval = self._file(_APPROVAL_FILES[approval_mode])
        output_format, mode = take_section(mode, OUTPUT_FORMAT)
        parts = [base, persona, mode, approval, output_format or ""]
        if skills:
            parts.append(self._skills_index())
        parts.append(self._project_context())
        if kind is not None:
            parts.append(f"## Task Type\n\n{kind}")
        if resources:
            parts.append(self._file("mcp-resources.md").rstrip() + "\n\n" + "\n".join(resources))
        return "\n\n".join(part.strip() for part in parts if part and part.strip()) + "\n"

    def skills_index(self) -> str:
        """The ``## Skills`` section ("" when no skill was found)."""
        with self._lock:
            return self._skills_index()

    def resource_index(self) -> str:
        """The ``## MCP Resources`` section of this run ("" when none)."""
        with self._lock:
            resources = self._mcp_resources
        return self._file("mcp-resources.md").rstrip() + "\n\n" + "\n".join(resources) if resources else ""

    def prompt_file(self, relative: str) -> str:
        """Any other prompt file (e.g. ``risk-check.md``), user override first."""
        return self._file(relative)

    # -- files ---------------------------------------------------------------

    def _file(self, relative: str) -> str:
        with self._lock:
            if relative not in self._files:
                self._files[relative] = self._read_prompt_file(relative)
            return self._files[relative]

    def _read_prompt_file(self, relative: str) -> str:
        override = self.user_prompts_dir / relative
        if override.exists():
            try:
                return override.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                self.warnings.append(
                    f"prompt override {override} cannot be read ({_reason(exc)}); using the packaged {relative}"
                )
        return self._read_packaged(relative)

    def _read_packaged(self, relative: str) -> str:
        path = self.packaged_dir / relative
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PromptError(f"packaged prompt file {path} cannot be read ({_reason(exc)})") from None

    def _packaged_availability(self, mode_file: str) -> str:
        section, _ = take_section(self._read_packaged(mode_file), TOOL_AVAILABILITY)
        if section is None:
            raise PromptError(f"packaged prompt file {mode_file} has no '## {TOOL_AVAILABILITY}' section")
        self.warnings.append(
            f"prompt override {mode_file} has no '## {TOOL_AVAILABILITY}' section; using the packaged one"
        )
        return section

    def skills(self) -> list[Skill]:
        """The skills found, looked up once: the index in the prompt and the
        load_skill tool always agree, whatever changes on disk (P-2.4)."""
        with self._lock:
            if self._found_skills is None:
                self._found_skills = discover_skills(self.workspace, self.user_skills_dir, self.warnings)
            return self._found_skills

    def _skills_index(self) -> str:
        if self._skills is None:
            found = self.skills()
            self._skills = ""
            if found:
                self._skills = self._file("skills.md").rstrip() + "\n\n" + "\n".join(index_lines(found))
        return self._skills

    def _project_context(self) -> str:
        text = self.project_text()
        return self._file("project-context.md").rstrip() + "\n\n" + text if text else ""

    def project_text(self) -> str:
        """``PAI.md`` as read once for this assembler (stripped; "" when none)."""
        with self._lock:
            if self._project is None:
                self._project = self._read_project_file().strip()
            return self._project

    def _read_project_file(self) -> str:
        path = self.workspace / PROJECT_FILE
        if not path.exists():
            return ""
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self.warnings.append(f"{path} cannot be read ({_reason(exc)}); left out of the prompt")
            return ""
        if len(text) > MAX_PROJECT_CHARS:
            self.warnings.append(f"{path} is longer than {MAX_PROJECT_CHARS} characters; only the start is used")
            text = text[:MAX_PROJECT_CHARS] + "\n…"
        return text


def _task_type(value: str) -> str:
    """A task type's name; a ``TaskType`` member is a ``str`` and passes too."""
    name = str(getattr(value, "value", value)).upper()
    if name not in TASK_TYPES:
        raise ValueError(f"unknown task type {value!r}; valid types: {', '.join(TASK_TYPES)}")
    return name


def _reason(exc: BaseException) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text"
    return getattr(exc, "strerror", None) or exc.__class__.__name__


# -- turn context (the first user message of a turn) ---------------------------


def turn_context(now: datetime | None = None, approval_mode: str | None = None) -> str:
    """The ``<paicli-turn-context>`` block: date with weekday, time to the
    minute, and the local time zone's name with its UTC offset; for the
    interactive agent also the approval mode in force this turn (the person
    may have switched it since the system prompt was written)."""
    moment = now if now is not None else datetime.now()
    if moment.tzinfo is None:
        moment = moment.astimezone()  # a naive time is taken as local time
    mode = f"Approval mode: {approval_mode}\n" if approval_mode else ""
    return (
        "<paicli-turn-context>\n"
        f"Date: {moment:%Y-%m-%d} ({moment:%A})\n"
        f"Time: {moment:%H:%M}\n"
        f"Time zone: {_zone(moment)}\n"
        f"{mode}"
        "</paicli-turn-context>"
    )


def with_turn_context(text: str, now: datetime | None = None, approval_mode: str | None = None) -> str:
    return turn_context(now, approval_mode) + "\n\n" + text


def _zone(moment: datetime) -> str:
    offset = moment.utcoffset() or timedelta(0)
    minutes = int(offset.total_seconds()) // 60
    sign = "+" if minutes >= 0 else "-"
    hours, mins = divmod(abs(minutes), 60)
    utc = f"UTC{sign}{hours:02d}:{mins:02d}"
    name = moment.tzname() or ""
    if name == "UTC" and minutes == 0:
        return "UTC"
    if not name or name == utc:
        return utc
    return f"{name} ({utc})"
