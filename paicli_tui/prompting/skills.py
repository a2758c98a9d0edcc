"""The skills index for worker prompts: which ``SKILL.md`` files exist.

A skill is a folder holding a ``SKILL.md``, found in the workspace's
``.paicli/skills/`` and in the config dir's ``skills/``. The index lists only
names, a one-line description and the file; the model loads a skill's body
with ``load_skill`` when its task matches (P-9.2). A workspace skill shadows a
user skill of the same name (the project knows its own conventions best).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SKILL_FILE = "SKILL.md"
WORKSPACE_SKILLS = Path(".paicli") / "skills"
#: Bounds that keep the index a small, stable part of the system prompt.
MAX_SKILLS = 20
MAX_DESCRIPTION_CHARS = 200
#: A longer body is cut: one skill must not crowd out the conversation.
MAX_BODY_CHARS = 40_000


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    #: Workspace skills relative to the workspace root; user skills absolute.
    path: Path

    @property
    def source(self) -> str:
        """``workspace`` (``.paicli/skills/``) or ``user`` (the config dir)."""
        return "user" if self.path.is_absolute() else "workspace"


def discover_skills(workspace: Path, user_skills_dir: Path | None, warnings: list[str]) -> list[Skill]:
    """Skills sorted by name (at most MAX_SKILLS). Unreadable files are
    skipped with a note appended to ``warnings``."""
    found: dict[str, Skill] = {}
    roots: list[tuple[Path, Path | None]] = []
    if user_skills_dir is not None:
        roots.append((user_skills_dir, None))
    roots.append((workspace / WORKSPACE_SKILLS, workspace))
    for root, relative_to in roots:  # the workspace comes last so it wins
        for skill in _skills_in(root, relative_to, warnings):
            found[skill.name] = skill
    return [found[name] for name in sorted(found)][:MAX_SKILLS]


def _skills_in(root: Path, relative_to: Path | None, warnings: list[str]) -> list[Skill]:
    try:
        folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return []  # no skills folder is the normal case
    skills = []
    for folder in folders:
        file = folder / SKILL_FILE
        if not file.is_file():
            continue
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            warnings.append(f"skill {file}: cannot be read ({exc.__class__.__name__}); left out of the index")
            continue
        shown = file.relative_to(relative_to) if relative_to is not None else file
        skills.append(Skill(folder.name, describe(text), shown))
    return skills


def body(text: str) -> str:
    """The instructions of a ``SKILL.md``: the text after any front matter,
    cut at MAX_BODY_CHARS."""
    lines = text.splitlines(keepends=True)
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end is not None:
            lines = lines[end + 1:]
    text = "".join(lines).strip()
    if len(text) > MAX_BODY_CHARS:
        text = text[:MAX_BODY_CHARS].rstrip() + f"\n\n[skill cut at {MAX_BODY_CHARS} characters]"
    return text


def describe(text: str) -> str:
    """A skill's one-line description: the ``description:`` of a YAML front
    matter when there is one, else the first line that is not a heading."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), len(lines))
        for line in lines[1:end]:
            key, _, value = line.partition(":")
            if key.strip().lower() == "description" and value.strip():
                return _one_line(value.strip().strip("\"'"))
        lines = lines[end + 1 :]
    for line in lines:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return _one_line(stripped)
    return ""


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > MAX_DESCRIPTION_CHARS:
        text = text[: MAX_DESCRIPTION_CHARS - 1].rstrip() + "…"
    return text


def index_lines(skills: list[Skill]) -> list[str]:
    """One Markdown list item per skill: ``- name: description (`file`)``."""
    lines = []
    for skill in skills:
        description = f": {skill.description}" if skill.description else ""
        lines.append(f"- {skill.name}{description} (`{skill.path.as_posix()}`)")
    return lines
