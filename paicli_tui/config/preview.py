"""What the first screen needs from the settings, read without validating
them, and whether these very settings were validated before.

Validating builds the settings' pydantic models, and importing pydantic is
most of the start-up time paicli adds to Textual's own (bench/startup.py).
A configuration that changed since it last passed is still validated before
the screen opens, so a mistake just made is refused in one line with a
clean terminal; one that passed before is validated again in the session's
start-up thread, after the first frame (an environment that changed
meanwhile then closes the app with the same one line and exit code).

"These very settings" is a digest of config.toml's text, the PAICLI_*
variables named after settings, the flags and paicli's version: never a
value itself, and no variable that could hold a key.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paicli_tui import __version__
from paicli_tui.config.paths import ConfigError, config_file, data_dir
from paicli_tui.config.presets import (
    DEFAULT_MODE, DEFAULT_PROVIDER, DEFAULT_THEME, MODES, PRESETS, ResolvedProvider, resolve_provider,
)

ENV_PREFIX = "PAICLI_"
#: The record of the last settings that passed validation.
CHECKED_FILE = "settings-checked.json"


def parse_toml(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's tables; ConfigError naming the file and the problem."""
    return parse_toml(read_text(path), path)


@dataclass(frozen=True)
class SettingsPreview:
    """The few settings the first screen reads, as ``Settings`` names them.
    Stands in for the settings until the session validated them."""

    provider: str = DEFAULT_PROVIDER
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    theme: str = DEFAULT_THEME
    approval_mode: str = DEFAULT_MODE
    #: Configured prices: none, or the settings are validated before the
    #: first frame (the status bar shows the price from it).
    prices: dict[str, Any] = field(default_factory=dict)
    #: Whether exactly these settings passed validation before.
    checked_before: bool = False
    #: The digest of config.toml, the flags and the version, to record
    #: with the environment's once these settings pass.
    base_digest: str = field(default="", repr=False)

    def resolved(self) -> ResolvedProvider:
        return resolve_provider(self.provider, self.base_url, self.model, self.api_key_env)


#: Preview field → the kind of value it must be to be shown before validation.
_SHOWN = {"provider": str, "base_url": str, "model": str, "api_key_env": str, "theme": str, "approval_mode": str}


def read_preview(overrides: dict[str, Any], path: Path | None = None) -> SettingsPreview | None:
    """The first screen's settings from config.toml, the environment and
    ``overrides`` (flags; None values ignored), or None when they cannot be
    shown without validating (a value of the wrong kind, an executor other
    than the local one, configured prices). ConfigError when config.toml cannot be read."""
    path = path or config_file()
    text = read_text(path) if path.exists() else ""
    values: dict[str, Any] = parse_toml(text, path) if text else {}
    executor = values.get("executor", {})
    if not isinstance(executor, dict) or executor.get("kind", "local") != "local":
        return None  # a cluster is reached, or refused, before the screen opens
    if "prices" in values or ENV_PREFIX + "PRICES" in os.environ:
        return None  # typed prices, for the status bar's first figure
    for name in _SHOWN:
        raw = os.environ.get(ENV_PREFIX + name.upper())
        if raw is not None:
            values[name] = raw
    values.update({k: v for k, v in overrides.items() if v is not None})
    shown = {name: values[name] for name in _SHOWN if name in values}
    if any(not isinstance(value, _SHOWN[name]) for name, value in shown.items()):
        return None
    if shown.get("provider", DEFAULT_PROVIDER) not in PRESETS or shown.get("approval_mode", DEFAULT_MODE) not in MODES:
        return None
    base = _base_digest(path, text, overrides)
    record = _read_record()
    checked = bool(record) and _digest_with(base, _env_names(record)) == record.get("digest")
    return SettingsPreview(**shown, checked_before=checked, base_digest=base)


def remember_checked(preview: SettingsPreview | None, setting_names: list[str]) -> None:
    """Record that the settings ``preview`` was read from passed validation.
    Only a start-up shortcut: a record that cannot be written is skipped."""
    if preview is None or preview.checked_before:
        return
    env_names = sorted(ENV_PREFIX + name.upper() for name in setting_names)
    record = {"digest": _digest_with(preview.base_digest, env_names), "env": env_names}
    try:
        from paicli_tui.config.atomic_file import write_atomically

        write_atomically(data_dir() / CHECKED_FILE, json.dumps(record), prefix=".settings-checked")
    except OSError:
        pass


def _read_record() -> dict[str, Any]:
    try:
        record = json.loads((data_dir() / CHECKED_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def _env_names(record: dict[str, Any]) -> list[str]:
    names = record.get("env", [])
    if not isinstance(names, list):
        return []
    return [name for name in names if isinstance(name, str) and name.startswith(ENV_PREFIX)]


def _base_digest(path: Path, text: str, overrides: dict[str, Any]) -> str:
    flags = sorted((name, value) for name, value in overrides.items() if value is not None)
    return hashlib.sha256(json.dumps([__version__, str(path), text, flags], default=str).encode()).hexdigest()


def _digest_with(base: str, env_names: list[str]) -> str:
    """``base`` with the named variables' values (a setting's, never a key's)."""
    digest = hashlib.sha256(base.encode())
    digest.update(json.dumps([(name, os.environ.get(name)) for name in env_names]).encode())
    return digest.hexdigest()
