"""The skills index for worker prompts: which ``SKILL.md`` files exist.

A skill is a folder holding a ``SKILL.md``, found in the workspace's
``.paicli/skills/`` and in the config dir's ``skills/``. The index lists only
names, a one-line description and the file; the model loads a skill's body
with ``load_skill`` when its task matches (P-9.2). A workspace skill shadows a
user skill of the same name (the project knows its own conventions best).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

SKILL_FILE = "SKILL.md"
_TAG = re.compile(r"<\s*/?\s*paicli[-\w]*", re.I)
WORKSPACE_SKILLS = Path(".paicli") / "skills"
#: Bounds that keep the index a small, stable part of the system prompt.
MAX_SKILLS = 20
MAX_DESCRIPTION_CHARS = 200
#: A longer body is cut: one skill must not crowd out the conversation.
MAX_BODY_CHARS = 40_000
#: Read for the index's description: the head of the file, never all of it.
DESCRIPTION_READ_BYTES = 1024
_NOFOLLOW = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


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
    """The skills under ``root``, reached without following a symbolic link
    at any step below ``relative_to`` (the workspace) or from ``root`` (the
    user's dir): a cloned repository's ``SKILL.md -> ~/.git-credentials``
    must not put the person's credentials into every prompt."""
    start, parts = (relative_to, root.relative_to(relative_to).parts) if relative_to is not None else (root, ())
    try:
        root_fd = _open_dir(start, parts)
    except OSError:
        return []  # no skills folder (or one that is a link) is the normal case
    skills = []
    try:
        with os.scandir(root_fd) as entries:
            folders = sorted(e.name for e in entries if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
        for name in folders:
            shown_file = root / name / SKILL_FILE
            try:
                head = _read_head(root_fd, name)
            except FileNotFoundError:
                continue
            except (OSError, ValueError) as exc:
                warnings.append(f"skill {shown_file}: cannot be read ({exc}); left out of the index")
                continue
            shown = shown_file.relative_to(relative_to) if relative_to is not None else shown_file
            skills.append(Skill(name, describe(head), shown))
    finally:
        os.close(root_fd)
    return skills


def _open_dir(start: Path, parts: tuple[str, ...]) -> int:
    fd = os.open(start, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        for part in parts:
            next_fd = os.open(part, _NOFOLLOW | getattr(os, "O_DIRECTORY", 0), dir_fd=fd)
            os.close(fd)
            fd = next_fd
    except OSError:
        os.close(fd)
        raise
    return fd


def _read_head(root_fd: int, folder: str) -> str:
    folder_fd = os.open(folder, _NOFOLLOW | getattr(os, "O_DIRECTORY", 0), dir_fd=root_fd)
    try:
        try:
            fd = os.open(SKILL_FILE, _NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=folder_fd)
        except OSError as exc:
            if exc.errno == 40:  # ELOOP: the file is a symbolic link
                raise ValueError("it is a symbolic link") from None
            raise
    finally:
        os.close(folder_fd)
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise ValueError("not a regular file")
        return handle.read(DESCRIPTION_READ_BYTES).decode("utf-8", errors="replace")


def open_skill_file(skill: Skill, workspace: Path):
    """The skill's file opened for reading, by the same no-follow walk."""
    if skill.source == "workspace":
        parts = skill.path.parts
        start = workspace
    else:
        parts = (skill.path.name,)
        start = skill.path.parent
    folder_fd = _open_dir(start, parts[:-1]) if skill.source == "workspace" else _open_dir(start, ())
    try:
        fd = os.open(parts[-1], _NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=folder_fd)
    finally:
        os.close(folder_fd)
    handle = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        handle.close()
        raise OSError(21, "not a regular file")
    return handle


def neutral(text: str) -> str:
    """``<`` of any paicli tag made harmless, so a skill cannot close the
    tag it arrives in or forge another source."""
    return _TAG.sub(lambda m: "&lt;" + m.group(0)[1:], text)


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
        description = f": {neutral(skill.description)}" if skill.description else ""
        lines.append(f"- {skill.name}{description} (`{skill.path.as_posix()}`)")
    return lines
