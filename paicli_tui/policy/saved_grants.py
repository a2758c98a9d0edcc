"""Grants a person chose to keep for one workspace (P-9.6).

They live in the config directory, never in the workspace: a rule that
allows something must come from the person, not from a cloned repository.
``permissions.toml`` holds one table per workspace:

    [[workspace]]
    path = "/home/me/project"
    allow = ["command: python -m pytest", "path: src/"]
"""

from __future__ import annotations

import json
from pathlib import Path

from paicli_tui.config.atomic_file import write_atomically
from paicli_tui.config.paths import ConfigError, config_dir
from paicli_tui.config.loading import read_toml
from paicli_tui.policy.grants import parse_rule

HEADER = "# Written by paicli: grants kept per workspace (/permissions). Edit or delete freely.\n"


def saved_grants_file() -> Path:
    return config_dir() / "permissions.toml"


def load_saved_rules(workspace: Path, path: Path | None = None) -> list[str]:
    """The allow rules saved for ``workspace``; ConfigError (one line) when
    the file cannot be read."""
    return list(_tables(path or saved_grants_file()).get(str(workspace.resolve()), []))


def save_rule(workspace: Path, rule: str, path: Path | None = None) -> Path:
    path = path or saved_grants_file()
    tables = _tables(path)
    rules = tables.setdefault(str(workspace.resolve()), [])
    if rule not in rules:
        rules.append(rule)
    _write(path, tables)
    return path


def remove_rule(workspace: Path, rule: str, path: Path | None = None) -> bool:
    path = path or saved_grants_file()
    tables = _tables(path)
    rules = tables.get(str(workspace.resolve()), [])
    if rule not in rules:
        return False
    rules.remove(rule)
    _write(path, tables)
    return True


def _tables(path: Path) -> dict[str, list[str]]:
    if not path.exists():
        return {}
    data = read_toml(path)
    tables: dict[str, list[str]] = {}
    for number, entry in enumerate(data.get("workspace", []), start=1):
        path_value = entry.get("path") if isinstance(entry, dict) else None
        allow = entry.get("allow", []) if isinstance(entry, dict) else None
        if not isinstance(path_value, str) or not isinstance(allow, list) or not all(isinstance(r, str) for r in allow):
            raise ConfigError(f"{path}: workspace entry {number}: needs path = \"…\" and allow = [\"…\", …]")
        tables.setdefault(path_value, []).extend(allow)
    return tables


def _write(path: Path, tables: dict[str, list[str]]) -> None:
    # JSON strings are valid TOML basic strings: no TOML writer needed.
    blocks = [
        f"[[workspace]]\npath = {json.dumps(where)}\nallow = [{', '.join(json.dumps(r) for r in rules)}]\n"
        for where, rules in tables.items()
        if rules
    ]
    write_atomically(path, HEADER + "\n" + "\n".join(blocks), ".permissions.")


def usable_saved_rules(workspace: Path, warnings: list[str]) -> list[str]:
    """The rules kept for ``workspace`` that still parse; a problem with the
    file or a rule is one line in ``warnings`` and never stops a session."""
    try:
        rules = load_saved_rules(workspace)
    except ConfigError as exc:
        warnings.append(f"{exc}; kept grants ignored")
        return []
    usable = []
    for rule in rules:
        try:
            parse_rule(rule, "workspace")
        except ValueError as exc:
            warnings.append(f"kept grants: {exc}; skipped")
            continue
        usable.append(rule)
    return usable

