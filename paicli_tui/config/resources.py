"""Packaged defaults (prompts, themes) and user overrides from the config dir."""

from __future__ import annotations

from pathlib import Path

from paicli_tui.config.paths import config_dir

#: The package root: this module lives one folder down, in config/.
_PACKAGE = Path(__file__).resolve().parent.parent


def packaged_dir(name: str) -> Path:
    """``prompts`` or ``themes`` as shipped: ``paicli_tui/<name>`` inside a
    wheel (pyproject maps the top-level folders there), the top-level folder
    in a source checkout."""
    inside = _PACKAGE / name
    return inside if inside.is_dir() else _PACKAGE.parent / name


def user_dir(name: str) -> Path:
    return config_dir() / name
