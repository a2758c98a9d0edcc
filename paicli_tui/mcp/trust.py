"""The person's agreement to a workspace's ``.mcp.json`` (P-9.1).

A cloned repository can carry a ``.mcp.json`` that starts any program, so its
servers start only after the person agreed to that file once. The agreement
is kept in the config directory (never in the workspace), for the
workspace's path and the file's SHA-256: a changed file asks again.

    [[workspace]]
    path = "/home/me/project"
    sha256 = "3f1c…"
"""

from __future__ import annotations

from paicli_tui.config.atomic_file import write_atomically

import json
from pathlib import Path

from paicli_tui.config.paths import ConfigError, config_dir

from paicli_tui.config.loading import read_toml

HEADER = "# Written by paicli: workspace .mcp.json files you agreed to start (/mcp). Delete a block to be asked again.\n"


def trust_file() -> Path:
    return config_dir() / "mcp-trust.toml"


def is_trusted(workspace: Path, sha256: str, path: Path | None = None) -> bool:
    """Whether the person agreed to this exact file for this workspace.
    An unreadable trust file trusts nothing (ConfigError names it)."""
    return (str(workspace.resolve()), sha256) in _entries(path or trust_file())


def trust(workspace: Path, sha256: str, path: Path | None = None) -> Path:
    """Remember the agreement; an older agreement for the workspace is replaced."""
    path = path or trust_file()
    where = str(workspace.resolve())
    entries = [entry for entry in _entries(path) if entry[0] != where]
    entries.append((where, sha256))
    blocks = [f"[[workspace]]\npath = {json.dumps(p)}\nsha256 = {json.dumps(h)}\n" for p, h in entries]
    write_atomically(path, HEADER + "\n" + "\n".join(blocks), ".mcp-trust.")
    return path


def _entries(path: Path) -> list[tuple[str, str]]:
    if not path.exists():
        return []
    entries = []
    for number, entry in enumerate(read_toml(path).get("workspace", []), start=1):
        where = entry.get("path") if isinstance(entry, dict) else None
        digest = entry.get("sha256") if isinstance(entry, dict) else None
        if not isinstance(where, str) or not isinstance(digest, str):
            raise ConfigError(f"{path}: workspace entry {number}: needs path = \"…\" and sha256 = \"…\"")
        entries.append((where, digest))
    return entries
