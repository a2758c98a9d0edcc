"""The wheel carries every package and every stylesheet: pyproject.toml
lists packages by hand (prompts/ and themes/ are mapped into the package),
so a new folder left out would import in an editable install and fail in a
real one."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_every_package_folder_is_listed():
    found = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "paicli_tui").rglob("__init__.py")}
    assert found - set(_setuptools()["packages"]) == set()


def test_every_folder_with_a_stylesheet_ships_it():
    shipped = {name for name, patterns in _setuptools()["package-data"].items() if "*.tcss" in patterns}
    folders = {".".join(css.parent.relative_to(ROOT).parts) for css in (ROOT / "paicli_tui").rglob("*.tcss")}
    assert folders - shipped == set()
