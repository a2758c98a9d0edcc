"""Joining a Ray cluster, or starting a private local one, with one clear
line when that cannot be done."""

from __future__ import annotations

import logging
import os
import socket
from urllib.parse import urlsplit

from paicli_tui.executors.base import ExecutorUnavailable

#: A local cluster for trying it out and for tests: loopback only, no dashboard.
LOCAL_CPUS = 2
PROBE_TIMEOUT_S = 3.0


def import_ray():
    try:
        import ray
    except ImportError:
        raise ExecutorUnavailable("--executor ray needs Ray: pip install 'paicli-tui[ray]'") from None
    return ray


def connect(address: str | None, secrets: dict[str, str]) -> tuple[object, str]:
    """Connect (or start a local cluster when ``address`` is None); returns
    the ray module and a short description of where tasks will run. A local
    cluster's processes inherit ``secrets`` as environment variables; a
    cluster joined at an address must have them already (docs/executors.md)."""
    ray = import_ray()
    if address:
        _probe(address)
    try:
        if address:
            ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
            where = f"ray @ {address}"
        else:
            with _environment(secrets):
                ray.init(num_cpus=LOCAL_CPUS, include_dashboard=False, _node_ip_address="127.0.0.1",
                         logging_level=logging.ERROR, log_to_driver=False)
            where = f"ray (local, {LOCAL_CPUS} CPUs)"
    except ExecutorUnavailable:
        raise
    except Exception as exc:  # noqa: BLE001 — Ray raises many kinds; each becomes the one line
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ExecutorUnavailable(f"cannot reach the Ray cluster at {address or 'a new local cluster'}: {first}") from None
    return ray, where


class _environment:
    """``values`` in os.environ only while the local cluster's processes start."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values = values

    def __enter__(self) -> None:
        os.environ.update(self.values)

    def __exit__(self, *exc) -> None:
        for name in self.values:
            os.environ.pop(name, None)


def _probe(address: str) -> None:
    """Fail in seconds, not after Ray's own minute of retries, when nothing
    listens at a ``ray://host:port`` or ``host:port`` address."""
    if address == "auto":
        return
    parts = urlsplit(address if "://" in address else f"gcs://{address}")
    host, port = parts.hostname, parts.port
    if not host or not port:
        raise ExecutorUnavailable(f"--ray-address {address}: expected auto, HOST:PORT or ray://HOST:PORT")
    try:
        socket.create_connection((host, port), timeout=PROBE_TIMEOUT_S).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ExecutorUnavailable(f"cannot reach the Ray cluster at {address}: {reason.lower()}") from None
