"""Theme files (P-7.5): packaged ones from ``themes/``, the person's own from
the config directory's ``themes/`` folder. Each file is TOML whose keys are
the fields of ``textual.theme.Theme``; a file that fails validation is
skipped and reported by name."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from textual.color import Color, ColorParseError
from textual.theme import Theme

from paicli_tui.config.resources import packaged_dir, user_dir

DEFAULT_DARK = "paicli-dark"

#: Variables our CSS uses beyond Textual's own; a theme may override them.
VARIABLE_DEFAULTS = {
    "mode-auto": "#4EBF71",
    "mode-plan": "#5FA8D3",
    "mode-ask": "#E0A458",
    "diff-added": "#4EBF71",
    "diff-removed": "#E05D5D",
}


class ThemeFile(BaseModel):
    """One theme file."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    """Name used by /theme and the command palette."""
    dark: bool = True
    primary: str
    secondary: str | None = None
    accent: str | None = None
    background: str | None = None
    surface: str | None = None
    panel: str | None = None
    foreground: str | None = None
    warning: str | None = None
    error: str | None = None
    success: str | None = None
    variables: dict[str, str] = Field(default_factory=dict)
    """Extra CSS variables, e.g. ``mode-ask = "#E0A458"``."""

    @field_validator(
        "primary", "secondary", "accent", "background", "surface", "panel", "foreground", "warning", "error", "success"
    )
    @classmethod
    def _is_colour(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                Color.parse(value)
            except ColorParseError:
                raise ValueError(f"{value!r} is not a colour") from None
        return value

    @field_validator("variables")
    @classmethod
    def _known_variables_are_colours(cls, variables: dict[str, str]) -> dict[str, str]:
        for name, value in variables.items():
            if name in VARIABLE_DEFAULTS:
                cls._is_colour(value)
        return variables

    def to_theme(self) -> Theme:
        return Theme(**self.model_dump())


@dataclass(frozen=True)
class ThemeProblem:
    path: Path
    problem: str

    def __str__(self) -> str:
        return f"theme {self.path}: {self.problem}"


def read_theme_file(path: Path) -> Theme:
    """Parse one theme file; raises ValueError with a one-line reason."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"not valid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read: {exc}") from None
    try:
        return ThemeFile(**data).to_theme()
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "?"
        message = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        raise ValueError(f"{key}: {message}") from None


def load_themes(folders: list[Path] | None = None) -> tuple[list[Theme], list[ThemeProblem]]:
    """Themes from the packaged folder, then the user's (a user theme with a
    packaged name replaces it). Bad files are skipped and reported."""
    folders = folders if folders is not None else [packaged_dir("themes"), user_dir("themes")]
    themes: dict[str, Theme] = {}
    problems: list[ThemeProblem] = []
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            try:
                theme = read_theme_file(path)
            except ValueError as exc:
                problems.append(ThemeProblem(path, str(exc)))
                continue
            themes[theme.name] = theme
    return list(themes.values()), problems
