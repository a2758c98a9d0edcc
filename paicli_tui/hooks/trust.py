"""The person's agreement to run a workspace's hooks, kept in the config
directory (never in the workspace) as the workspace's path and the digests
of the hooks agreed to: a new or changed hook asks again.

    [[workspace]]
    path = "/home/me/project"
    digests = ["3f1c…", "9a0b…"]
"""

from __future__ import annotations

import json
from pathlib import Path

from paicli_tui.config.atomic_file import write_atomically
from paicli_tui.config.paths import ConfigError, config_dir
from paicli_tui.config.loading import read_toml

HEADER = "# Written by paicli: workspace hooks you agreed to run (/hooks). Delete a block to be asked again.\n"


def trust_file() -> Path:
    return config_dir() / "hooks-trust.toml"


def trusted_digests(workspace: Path, path: Path | None = None) -> set[str]:
    """The digests agreed to for this workspace (an unreadable file trusts
    nothing: ConfigError names it)."""
    return set(_entries(path or trust_file()).get(str(workspace.resolve()), ()))


def trust(workspace: Path, digests: list[str], path: Path | None = None) -> Path:
    """Remember the agreement; an older one for the workspace is replaced."""
    path = path or trust_file()
    entries = _entries(path)
    entries[str(workspace.resolve())] = sorted(set(digests))
    blocks = [f"[[workspace]]\npath = {json.dumps(where)}\ndigests = {json.dumps(values)}\n"
              for where, values in entries.items()]
    write_atomically(path, HEADER + "\n" + "\n".join(blocks), ".hooks-trust.")
    return path


def _entries(path: Path) -> dict[str, list[str]]:
    if not path.exists():
        return {}
    entries: dict[str, list[str]] = {}
    for number, entry in enumerate(read_toml(path).get("workspace", []), start=1):
        where = entry.get("path") if isinstance(entry, dict) else None
        digests = entry.get("digests") if isinstance(entry, dict) else None
        if not isinstance(where, str) or not isinstance(digests, list) or not all(isinstance(d, str) for d in digests):
            raise ConfigError(f"{path}: workspace entry {number}: needs path = \"…\" and digests = [\"…\"]")
        entries[where] = digests
    return entries
