"""The executor the settings ask for (``[executor]`` in config.toml, or
``paicli run --executor ray --ray-address …``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paicli_tui.executors.local import LocalExecutor

if TYPE_CHECKING:
    from paicli_tui.config.settings import Settings
    from paicli_tui.executors.base import Executor


def open_executor(settings: "Settings") -> "Executor":
    """Raises ExecutorUnavailable (one line) when a cluster cannot be used."""
    chosen = settings.executor
    if chosen.kind == "local":
        return LocalExecutor()
    from paicli_tui.executors.ray_executor import RayExecutor

    provider = settings.resolved()
    key = provider.api_key() if provider.api_key_env else None
    return RayExecutor.connect(chosen.ray_address, {provider.api_key_env: key} if key else {})


def recorded_choice(where: str) -> tuple[str, str | None]:
    """The executor and cluster address of a run's recorded ``where``
    (``local``, ``ray @ ADDR``, ``ray (local, 2 CPUs)``), to go on with it
    there; a private local Ray is gone with its run, so a new one is started."""
    if where.startswith("ray @ "):
        return "ray", where.removeprefix("ray @ ").strip() or None
    if where.startswith("ray"):
        return "ray", None
    return "local", None
