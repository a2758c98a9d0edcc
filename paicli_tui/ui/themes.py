"""Theme files (P-7.5): packaged ones from ``themes/``, the person's own from
the config directory's ``themes/`` folder. Each file is TOML whose keys are
the fields of ``textual.theme.Theme``; a file that fails validation is
skipped and reported by name."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

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


#: The colour keys a theme file may set; ``primary`` is required.
COLOUR_KEYS = ("primary", "secondary", "accent", "background", "surface", "panel", "foreground",
               "warning", "error", "success")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def _colour(key: str, value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{key}: a colour is a string, like \"#3388ff\"")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ValueError(f"{key}: {value!r} is not a colour") from None
    return value


def theme_from_table(data: dict) -> Theme:
    """A theme file's table as a Textual theme; ValueError naming the key.
    Checked by hand rather than by a pydantic model: themes load before the
    first frame, which is drawn without pydantic (config/preview.py)."""
    for key in data:
        if key not in ("name", "dark", "variables", *COLOUR_KEYS):
            raise ValueError(f"{key}: unknown key")
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError("name: required: letters, digits, '_', '.' and '-', starting with a letter or digit")
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ValueError("dark: true or false")
    if "primary" not in data:
        raise ValueError("primary: required")
    colours = {key: _colour(key, data[key]) for key in COLOUR_KEYS if key in data}
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ValueError("variables: a table of strings")
    for key, value in variables.items():
        if key in VARIABLE_DEFAULTS:
            _colour(f"variables.{key}", value)
    return Theme(name=name, dark=dark, variables=dict(variables), **colours)


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
    return theme_from_table(data)


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
