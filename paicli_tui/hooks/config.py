"""Which hooks a session has: the person's own (config.toml) and the
workspace's (``.paicli/config.toml``, run only once trusted).

A hook's ``digest`` is what trust agrees to: the event, matcher, command
and timeout, plus the content of every file inside the workspace that the
command names (``python3 .paicli/hooks/check.py``), so an edited script is
a new hook and asks again."""

from __future__ import annotations

import hashlib
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from paicli_tui.config.hooks_settings import HOOK_EVENTS, HookEntry, HooksSettings
from paicli_tui.config.settings import ConfigError, Settings
from paicli_tui.config.loading import read_toml

HookSource = Literal["user", "workspace"]
#: Bytes of a named script hashed at most (a hook naming a huge file).
MAX_HASHED_BYTES = 4 * 2**20


@dataclass(frozen=True)
class Hook:
    event: str
    entry: HookEntry
    source: HookSource
    digest: str

    @property
    def command(self) -> str:
        return self.entry.command

    def describe(self) -> str:
        return f"{self.event} [{self.entry.matcher or '*'}] {self.command} — sha256 {self.digest[:12]}"


def workspace_config(workspace: Path) -> Path:
    return workspace / ".paicli" / "config.toml"


def load_hooks(settings: Settings, workspace: Path, warnings: list[str]) -> list[Hook]:
    """Every configured hook, the person's first, in file order. A bad
    workspace file is one warning and contributes none."""
    workspace = workspace.resolve()
    hooks = _hooks(settings.hooks, "user", workspace)
    path = workspace_config(workspace)
    if path.is_file():
        hooks += _hooks(_workspace_settings(path, warnings), "workspace", workspace)
    return hooks


def _workspace_settings(path: Path, warnings: list[str]) -> HooksSettings:
    try:
        table = read_toml(path)
    except ConfigError as exc:
        warnings.append(f"{exc}; its hooks are ignored")
        return HooksSettings()
    others = sorted(key for key in table if key != "hooks")
    if others:
        warnings.append(f"{path}: only [hooks] is read from a workspace; ignored: {', '.join(others)}")
    try:
        return HooksSettings(**table.get("hooks", {}))
    except (ValidationError, TypeError) as exc:
        first = exc.errors()[0] if isinstance(exc, ValidationError) else {"loc": (), "msg": str(exc)}
        where = ".".join(str(part) for part in ("hooks", *first["loc"]))
        message = "unknown hook event" if first.get("type") == "extra_forbidden" else first["msg"]
        warnings.append(f"{path}: {where}: {message}; its hooks are ignored")
        return HooksSettings()


def _hooks(settings: HooksSettings, source: HookSource, workspace: Path) -> list[Hook]:
    return [Hook(event, entry, source, digest(event, entry, workspace))
            for event in HOOK_EVENTS for entry in settings.entries(event)]


def digest(event: str, entry: HookEntry, workspace: Path) -> str:
    hasher = hashlib.sha256()
    for part in (event, entry.matcher, entry.command, repr(entry.timeout)):
        hasher.update(part.encode() + b"\0")
    for path in _named_files(entry.command, workspace):
        hasher.update(str(path.relative_to(workspace)).encode() + b"\0")
        with path.open("rb") as handle:
            hasher.update(handle.read(MAX_HASHED_BYTES))
    return hasher.hexdigest()


def _named_files(command: str, workspace: Path) -> list[Path]:
    try:
        tokens = shlex.split(command)
    except ValueError:  # unbalanced quotes: bash will say so when it runs
        tokens = command.split()
    found = []
    for token in tokens:
        candidate = (workspace / token).resolve() if not token.startswith("/") else Path(token).resolve()
        try:
            candidate.relative_to(workspace)
        except ValueError:
            continue
        if candidate.is_file() and candidate not in found:
            found.append(candidate)
    return found
