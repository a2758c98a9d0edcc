"""The grammar of allow/deny rules and kept grants (P-9.6), on the ground
floor so that settings can reject a bad rule while loading; what a rule
covers is decided in ``policy/grants.py``.

A rule is ``command: PREFIX``, ``command= EXACT COMMAND``, ``path: FILE`` or
``path: DIR/`` (a trailing ``/`` or ``/**`` means everything under it), or
for MCP tools ``tool: mcp__SERVER__TOOL`` or ``tool: mcp__SERVER__*``.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

RuleKind = Literal["command", "exact", "file", "directory", "tool"]
MCP_PREFIX = "mcp__"


@dataclass(frozen=True)
class PermissionRule:
    kind: RuleKind
    pattern: str


def parse_permission_rule(text: str) -> PermissionRule:
    """A rule line's kind and pattern; ValueError naming what is wrong."""
    head, sep, value = text.partition(":")
    exact = False
    if not sep or "=" in head:
        head, sep, value = text.partition("=")
        exact = True
    kind, value = head.strip().lower(), value.strip()
    if not sep or not value:
        raise ValueError(f"rule {text!r}: write 'command: PREFIX', 'command= EXACT', 'path: FILE' or 'path: DIR/'")
    if kind == "command":
        if exact:
            return PermissionRule("exact", value)
        try:
            words = shlex.split(value)
        except ValueError:
            raise ValueError(f"rule {text!r}: unbalanced quotes") from None
        return PermissionRule("command", " ".join(words))
    if kind == "path" and not exact:
        if value.startswith(("/", "~")) or ".." in Path(value).parts:
            raise ValueError(f"rule {text!r}: a path rule is relative to the workspace and stays inside it")
        if value in (".", "./", "**", "*") or value.endswith(("/**", "/")):
            directory = value.removesuffix("**").rstrip("/")
            return PermissionRule("directory", f"{directory}/" if directory not in ("", ".") else "./")
        return PermissionRule("file", Path(value).as_posix())
    if kind == "tool" and not exact:
        server, sep, rest = value.removeprefix(MCP_PREFIX).partition("__")
        if not value.startswith(MCP_PREFIX) or not sep or not server or not rest or "*" in rest[:-1]:
            raise ValueError(f"rule {text!r}: a tool rule names an MCP tool: 'tool: mcp__SERVER__TOOL' or "
                             "'tool: mcp__SERVER__*'")
        return PermissionRule("tool", value)
    raise ValueError(f"rule {text!r}: unknown kind {kind!r} (use command, path or tool)")
