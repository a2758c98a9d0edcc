"""The executor the settings ask for (``[executor]`` in config.toml, or
``paicli run --executor ray --ray-address …``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paicli_tui.executors.local import LocalExecutor

if TYPE_CHECKING:
    from paicli_tui.config.settings import ExecutorSettings
    from paicli_tui.executors.base import Executor


def open_executor(settings: "ExecutorSettings") -> "Executor":
    """Raises ExecutorUnavailable (one line) when a cluster cannot be used."""
    if settings.kind == "local":
        return LocalExecutor()
    from paicli_tui.executors.ray_executor import RayExecutor

    return RayExecutor.connect(settings.ray_address)
