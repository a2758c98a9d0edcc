"""Reading and writing config.toml: the settings from the file, then the
PAICLI_* environment, then the flags; one remembered key written back."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from paicli_tui.config.paths import ConfigError, config_file
from paicli_tui.config.preview import ENV_PREFIX, read_toml
from paicli_tui.config.settings import Settings


def _env_values() -> dict[str, str]:
    values = {}
    for name in Settings.model_fields:
        raw = os.environ.get(ENV_PREFIX + name.upper())
        if raw is not None:
            values[name] = raw
    return values


#: Settings that became something else, and what to write instead.
REPLACED_SETTINGS = {
    "sandbox_network_allow": "replaced by network rules: under [permissions] write "
                             "allow = [\"network: allow command: pip install\"] (or \"network: allow host: pypi.org\")",
}


def _describe(error: ValidationError, source: str) -> str:
    first = error.errors()[0]
    key = ".".join(str(p) for p in first["loc"]) or "?"
    message = first["msg"]
    if first["type"] == "extra_forbidden":
        message = REPLACED_SETTINGS.get(key, "unknown setting")
    return f"{source}: {key}: {message}"


def load_settings(overrides: dict[str, Any] | None = None, path: Path | None = None) -> Settings:
    """Read config.toml, then environment, then ``overrides`` (flags; None
    values are ignored). Raises ConfigError with a one-line message."""
    path = path or config_file()
    file_values = read_toml(path) if path.exists() else {}
    try:
        settings = Settings(**file_values)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, str(path))) from None
    for source, values in (("environment", _env_values()), ("command line", overrides or {})):
        merged = settings.model_dump()
        merged.update({k: v for k, v in values.items() if v is not None})
        try:
            settings = Settings(**merged)
        except ValidationError as exc:
            raise ConfigError(_describe(exc, source)) from None
    return settings


def remember(key: str, value: str | int | float | bool, path: Path | None = None) -> None:
    """Persist one top-level setting (e.g. the theme) into config.toml,
    keeping the other lines as they are."""
    path = path or config_file()
    Settings.model_fields[key]  # KeyError for unknown keys: a programming error
    rendered = _toml_value(value)
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    # Top-level keys live before the first [table]: a line appended after
    # `[permissions]` would belong to that table.
    first_table = next((i for i, line in enumerate(lines) if line.lstrip().startswith("[")), len(lines))
    for i, line in enumerate(lines[:first_table]):
        if line.split("=", 1)[0].strip() == key:
            lines[i] = f"{key} = {rendered}"
            break
    else:
        lines.insert(first_table, f"{key} = {rendered}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(path)


def _toml_value(value: str | int | float | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'
