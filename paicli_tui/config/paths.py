"""Where paicli keeps its files: the config and data folders (``PAICLI_HOME``
points both at one folder; tests use it), and the check that they can be
used before a command writes."""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "paicli"


class ConfigError(Exception):
    """A bad config file or value. ``str()`` is one line: where, which key, what."""


def config_dir() -> Path:
    home = os.environ.get("PAICLI_HOME")
    if home:
        return Path(home)
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME))


def data_dir() -> Path:
    home = os.environ.get("PAICLI_HOME")
    if home:
        return Path(home)
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME))


def check_dirs(*, create: bool) -> None:
    """ConfigError (one line) when the config or data directory cannot be
    used: a file stands where a directory must be, or (``create``, for the
    commands that write) the directory cannot be made or written."""
    named = "PAICLI_HOME " if os.environ.get("PAICLI_HOME") else ""
    for what, path in (("config", config_dir()), ("data", data_dir())):
        blocker = next((p for p in (path, *path.parents) if p.exists()), None)
        if blocker is not None and not blocker.is_dir():
            kind = f"{named}{path}" if blocker == path else f"{named}{path}: {blocker}"
            raise ConfigError(f"{kind} is not a directory (it is a file)")
        if not create:
            continue
        try:
            (path / "history" / "raw").mkdir(parents=True, exist_ok=True) if what == "data" else path.mkdir(
                parents=True, exist_ok=True)
            probe = path / f".paicli-write-check-{os.getpid()}"
            probe.touch()
            probe.unlink()
        except OSError as exc:
            raise ConfigError(f"cannot write the {what} directory {path}: {exc.strerror or exc}") from None


def config_file() -> Path:
    return config_dir() / "config.toml"
