"""Scoped grants and the person's allow/deny rules (P-6.5, P-9.6).

"Always" never means "this tool, whatever it does": it grants a command's
program and subcommand (``python -m pytest …``), or one file, or a
directory's files. The scope is shown before the person agrees. A grant only
spares a question the mode would ask; it never overrides the risk check (a
risky command asks every time) and a deny rule beats every allow.

Rules are written as ``command: PREFIX``, ``command= EXACT COMMAND``,
``path: FILE`` or ``path: DIR/`` (a trailing ``/`` or ``/**`` means
everything under it), or for MCP tools ``tool: mcp__SERVER__TOOL`` or
``tool: mcp__SERVER__*`` (every tool of one server).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from paicli_tui.config.permission_rules import MCP_PREFIX, NETWORK_KINDS, RuleKind, parse_permission_rule
from paicli_tui.tools.base import ToolError
from paicli_tui.policy import arg_shapes
from paicli_tui.policy.command_split import single_command_words
from paicli_tui.policy.invocations import invocations
from paicli_tui.policy.network_rules import covers_network
from paicli_tui.tools.confinement import display_path, resolve_in_workspace

GrantKind = RuleKind
FILE_TOOLS = frozenset({"write_file", "edit_file"})
#: Programs whose second word names what they do (``git status``, ``npm test``).
SUBCOMMAND_PROGRAMS = frozenset({
    "git", "npm", "pnpm", "yarn", "bun", "deno", "cargo", "go", "make", "just", "docker", "kubectl", "pip",
    "pip3", "uv", "poetry", "pdm", "hatch", "tox", "nox", "bundle", "rake", "dotnet", "mvn", "gradle", "npx",
    "bunx", "pipx", "rustup", "mix", "composer",
})
#: ``uv run pytest``: the thing run is the third word.
RUNNER_SUBCOMMANDS = frozenset({"run", "exec", "x"})
#: Programs whose every use is different enough that only the exact command is granted.
EXACT_ONLY = frozenset({
    "rm", "rmdir", "mv", "cp", "dd", "chmod", "chown", "chgrp", "kill", "pkill", "killall", "sh", "bash", "zsh",
    "dash", "fish", "eval", "exec", "source", ".", "sudo", "su", "doas", "ssh", "scp", "curl", "wget", "find",
    "xargs", "env", "nohup", "timeout", "truncate", "shred", "ln", "tee",
})
PYTHONS = frozenset({"python", "python3", "py"})


@dataclass(frozen=True)
class Grant:
    kind: GrantKind
    pattern: str
    """Command words joined by spaces; an exact command; a workspace-relative
    file; or a workspace-relative directory ending in ``/`` (``./`` = all)."""
    source: str = "session"
    """session (given in a dialog), workspace (kept for this workspace in
    permissions.toml) or config (a rule in config.toml)."""

    @property
    def rule(self) -> str:
        """The grant as a rule line, as config.toml and the ledger write it."""
        return {"command": f"command: {self.pattern}", "exact": f"command= {self.pattern}",
                "file": f"path: {self.pattern}", "directory": f"path: {self.pattern}",
                "tool": f"tool: {self.pattern}", "network_command": f"network: allow command: {self.pattern}",
                "network_host": f"network: allow host: {self.pattern}"}[self.kind]

    def describe(self, *, deny: bool = False) -> str:
        """What the grant allows (or, as a deny rule, refuses), in words for
        the person. A deny rule holds however the command is spelt."""
        if self.kind == "command":
            if deny:
                return f"commands that run `{self.pattern}`, however spelt (env, sh -c, xargs, full paths …)"
            return arg_shapes.describe(self.pattern.split(" "))
        if self.kind == "exact":
            return f"exactly the command `{self.pattern}`"
        if self.kind == "network_command":
            return f"the network for commands starting `{self.pattern}` (the sandbox keeps it off otherwise)"
        if self.kind == "network_host":
            return (f"the network for a plain command whose every URL names {self.pattern} or a subdomain "
                    "(the whole network for that command, not only that host)")
        if self.kind == "file":
            return f"writes and edits to {self.pattern}"
        if self.kind == "tool":
            if self.pattern.endswith("*"):
                return f"every tool of MCP server {self.pattern[len(MCP_PREFIX):].removesuffix('__*')}"
            return f"every call of the MCP tool {self.pattern}"
        where = "the whole workspace" if self.pattern == "./" else self.pattern
        return f"writes and edits to any file under {where}"

    def covers(self, tool: str, args: dict[str, Any], workspace: Path, *, any_part: bool = False) -> bool:
        """Whether the call falls in this scope. ``any_part`` (deny rules):
        a command matches when any of its simple commands does. A network
        rule covers no call: it only decides whether an allowed command gets
        the network (``network_allowing``)."""
        if self.kind in NETWORK_KINDS:
            return False
        if self.kind == "tool":
            if self.pattern.endswith("*"):
                return tool.startswith(self.pattern[:-1])
            return tool == self.pattern
        if self.kind in ("command", "exact"):
            if tool != "execute_command":
                return False
            command = str(args.get("command", ""))
            if self.kind == "exact":
                return command.strip() == self.pattern
            prefix = self.pattern.split(" ")
            if any_part:
                return _denied(prefix, command, workspace)
            words = single_command_words(command)
            if words is None or words[: len(prefix)] != prefix or not _plain(command, workspace):
                return False
            return arg_shapes.misfit(prefix, words[len(prefix):]) is None
        if tool not in FILE_TOOLS:
            return False
        relative = _relative(workspace, args.get("path"))
        if relative is None:
            return False
        if self.kind == "file":
            return relative == self.pattern
        return self.pattern == "./" or relative.startswith(self.pattern)


def parse_rule(text: str, source: str = "config") -> Grant:
    """A rule line as a Grant; ValueError naming what is wrong."""
    rule = parse_permission_rule(text)
    return Grant(rule.kind, rule.pattern, source)


def _denied(prefix: list[str], command: str, workspace: Path) -> bool:
    """A deny rule matches when any program the command runs, however it is
    spelt, starts with the rule's words; a word only known when the command
    runs matches any rule word, and a command that cannot be analysed is
    denied whenever deny rules exist."""
    try:
        runs = invocations(command, workspace)
    except ValueError:
        return True
    rule = [os.path.basename(prefix[0]), *prefix[1:]]
    for inv in runs:
        if inv.dynamic:
            return True
        words = list(inv.words)
        if len(words) < len(rule) and not inv.appends_input:
            continue
        if all(i >= len(words) or _word_matches(words[i], want) for i, want in enumerate(rule)):
            return True
    return False


def _word_matches(word: str, want: str) -> bool:
    return word == want or "$" in word or "`" in word


def _plain(command: str, workspace: Path) -> bool:
    """An allow rule or grant covers only a command that runs one program,
    spelt plainly: no wrapper, shell, variable or environment prefix."""
    try:
        runs = invocations(command, workspace)
    except ValueError:
        return False
    runs = [r for r in runs if not (r.via and r.via[-1].endswith(" -m"))]  # python -m X is one program
    return len(runs) == 1 and not runs[0].dynamic and not runs[0].via and not runs[0].assignments


def proposed_grants(tool: str, args: dict[str, Any], workspace: Path) -> tuple[Grant, ...]:
    """What "Always" may grant for this call, narrowest first: a command's
    program and subcommand (or the exact command); a file, then its folder."""
    if tool == "execute_command":
        return (command_grant(str(args.get("command", ""))),)
    if tool.startswith(MCP_PREFIX):
        server = tool[len(MCP_PREFIX):].split("__", 1)[0]
        return Grant("tool", tool), Grant("tool", f"{MCP_PREFIX}{server}__*")
    if tool in FILE_TOOLS:
        relative = _relative(workspace, args.get("path"))
        if relative is None:
            return ()
        folder = Path(relative).parent.as_posix()
        return Grant("file", relative), Grant("directory", "./" if folder == "." else f"{folder}/")
    return ()


def command_grant(command: str) -> Grant:
    words = single_command_words(command)
    if words is None:
        return Grant("exact", command.strip())
    program = os.path.basename(words[0])
    take = 1
    if program in EXACT_ONLY or "=" in words[0]:
        return Grant("exact", command.strip())
    if program in PYTHONS or program.startswith("python3."):
        if len(words) > 2 and words[1] == "-m":
            take = 3
        elif len(words) > 1 and not words[1].startswith("-"):
            take = 2
        else:
            return Grant("exact", command.strip())
    elif program in SUBCOMMAND_PROGRAMS and len(words) > 1 and not words[1].startswith("-"):
        take = 3 if words[1] in RUNNER_SUBCOMMANDS and len(words) > 2 else 2
    return Grant("command", " ".join(words[:take]))


def _relative(workspace: Path, raw: object) -> str | None:
    if not isinstance(raw, str):
        return None
    try:
        return Path(display_path(workspace, resolve_in_workspace(workspace, raw))).as_posix()
    except ToolError:
        return None


class GrantStore:
    """The session's grants plus the person's rules from config. Shared by
    every agent of the session; thread-safe."""

    def __init__(
        self, workspace: Path, allow: Iterable[Grant] = (), deny: Iterable[Grant] = (), saved: Iterable[Grant] = ()
    ) -> None:
        self.workspace = workspace
        self._allow_rules = tuple(allow)
        self._deny_rules = tuple(deny)
        self._saved = list(saved)
        self._session: list[Grant] = []
        self._lock = threading.Lock()

    def keep(self, grant: Grant) -> Grant:
        """Move a session grant to the ones kept for this workspace."""
        kept = Grant(grant.kind, grant.pattern, "workspace")
        with self._lock:
            if grant in self._session:
                self._session.remove(grant)
            if kept not in self._saved:
                self._saved.append(kept)
        return kept

    def forget_kept(self, grant: Grant) -> bool:
        with self._lock:
            if grant not in self._saved:
                return False
            self._saved.remove(grant)
            return True

    @property
    def kept_grants(self) -> tuple[Grant, ...]:
        with self._lock:
            return tuple(self._saved)

    def add(self, grant: Grant) -> bool:
        """False when an equal grant was already there."""
        with self._lock:
            if grant in self._session:
                return False
            self._session.append(grant)
            return True

    def revoke(self, grant: Grant) -> bool:
        with self._lock:
            if grant not in self._session:
                return False
            self._session.remove(grant)
            return True

    def clear(self) -> list[Grant]:
        with self._lock:
            dropped, self._session = self._session, []
            return dropped

    @property
    def session_grants(self) -> tuple[Grant, ...]:
        with self._lock:
            return tuple(self._session)

    @property
    def allow_rules(self) -> tuple[Grant, ...]:
        return self._allow_rules

    @property
    def deny_rules(self) -> tuple[Grant, ...]:
        return self._deny_rules

    def allowing(self, tool: str, args: dict[str, Any], root: Path | None = None) -> Grant | None:
        """``root`` is where the call runs (a task's own tree, whose paths
        the grants name relative to it just as in the workspace)."""
        for grant in (*self._allow_rules, *self.kept_grants, *self.session_grants):
            if grant.covers(tool, args, root or self.workspace):
                return grant
        return None

    def network_allowing(self, command: str) -> Grant | None:
        """The network rule that lets ``command`` reach the network, if any."""
        for grant in (*self._allow_rules, *self.kept_grants, *self.session_grants):
            if grant.kind in NETWORK_KINDS and covers_network(grant, command):
                return grant
        return None

    def denying(self, tool: str, args: dict[str, Any], root: Path | None = None) -> Grant | None:
        for rule in self._deny_rules:
            if rule.covers(tool, args, root or self.workspace, any_part=True):
                return rule
        return None
