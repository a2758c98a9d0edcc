"""The grammar of allow/deny rules and kept grants (P-9.6), on the ground
floor so that settings can reject a bad rule while loading; what a rule
covers is decided in ``policy/grants.py``.

A rule is ``command: PREFIX``, ``command= EXACT COMMAND``, ``path: FILE`` or
``path: DIR/`` (a trailing ``/`` or ``/**`` means everything under it), or
for MCP tools ``tool: mcp__SERVER__TOOL`` or ``tool: mcp__SERVER__*``.
Network rules let sandboxed commands reach the network (it is off by
default): ``network: allow command: PREFIX`` for commands starting with
PREFIX, ``network: allow host: HOST`` for commands whose every URL names
HOST or one of its subdomains. They only ever allow, so they belong in the
allow list; they never spare a question about the command itself.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

RuleKind = Literal["command", "exact", "file", "directory", "tool", "network_command", "network_host"]
NETWORK_KINDS = frozenset({"network_command", "network_host"})
MCP_PREFIX = "mcp__"
_HOST = re.compile(r"(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9a-fA-F:]+\]")


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
    if kind == "network" and not exact:
        return _network_rule(text, value)
    raise ValueError(f"rule {text!r}: unknown kind {kind!r} (use command, path, tool or network)")


def _network_rule(text: str, value: str) -> PermissionRule:
    verb, _, rest = value.partition(" ")
    target, sep, pattern = rest.partition(":")
    target, pattern = target.strip().lower(), pattern.strip()
    usage = f"rule {text!r}: write 'network: allow command: PREFIX' or 'network: allow host: HOST'"
    if verb.lower() != "allow" or not sep or not pattern:
        raise ValueError(usage)
    if target == "command":
        try:
            words = shlex.split(pattern)
        except ValueError:
            raise ValueError(f"rule {text!r}: unbalanced quotes") from None
        return PermissionRule("network_command", " ".join(words))
    if target == "host":
        if not _HOST.fullmatch(pattern):
            raise ValueError(f"rule {text!r}: {pattern!r} is not a host name (write pypi.org, not a URL)")
        return PermissionRule("network_host", pattern.lower().removeprefix("*."))
    raise ValueError(usage)
