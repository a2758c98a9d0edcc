"""Helpers shared by command handlers: settings from flags, workspace."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paicli_tui.config import secret_store
from paicli_tui.config.paths import ConfigError

if TYPE_CHECKING:
    from paicli_tui.config.settings import Settings

#: argparse attribute → Settings field, for flags that override settings.
FLAG_SETTINGS = {
    "provider": "provider",
    "base_url": "base_url",
    "model": "model",
    "api_key_env": "api_key_env",
    "schedule": "schedule",
    "parallelism": "parallelism",
    "workers": "workers",
    "isolation": "isolation",
    "on_conflict": "on_conflict",
    "apply": "apply",
    "approval": "approval_mode",
    "theme": "theme",
    "max_turns": "max_turns",
    "max_tokens": "max_tokens",
    "max_seconds": "max_seconds",
    "run_max_turns": "run_max_turns",
    "run_max_tokens": "run_max_tokens",
    "run_max_seconds": "run_max_seconds",
    "max_cost": "max_cost",
    "run_max_cost": "run_max_cost",
}


class CommandError(Exception):
    """A user-facing failure: printed as one line, exit code attached."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def settings_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the flags set (None: not given)."""
    overrides = {field: getattr(args, attr, None) for attr, field in FLAG_SETTINGS.items()}
    if getattr(args, "demo", False):
        overrides.update(provider="demo", base_url=None, model=None, api_key_env=None)
    return overrides


def settings_from_args(args: argparse.Namespace) -> "Settings":
    from paicli_tui.config.loading import load_settings
    from paicli_tui.records.prices import cost_limit_refusal

    settings = load_settings(settings_overrides(args))
    refusal = cost_limit_refusal(settings)
    if refusal is not None:  # never silently ignored
        raise ConfigError(refusal)
    # Before any thread starts: from here on the key is in memory only.
    secret_store.capture(settings.resolved().api_key_env)
    return settings


def workspace_from_args(args: argparse.Namespace) -> Path:
    raw = getattr(args, "workspace", None)
    path = Path(raw).expanduser() if raw else Path.cwd()
    if not path.is_dir():
        raise CommandError(f"workspace {path} is not a directory")
    return path.resolve()


def fail(message: str, code: int = 2) -> int:
    print(f"paicli: {message}", file=sys.stderr)
    return code


def load_or_fail(args: argparse.Namespace) -> "Settings | int":
    try:
        return settings_from_args(args)
    except ConfigError as exc:
        return fail(str(exc), 2)
