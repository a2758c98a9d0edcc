"""The Ray side of the Ray executor: the remote turn and the relay actor
its events come back through. Importing this module needs Ray."""

from __future__ import annotations

import ray

from paicli_tui.executors.remote_turn import TurnReport, TurnSpec, run_remote_turn


@ray.remote(num_cpus=0)
class EventRelay:
    """Batches of a turn's events, by turn key, until the driver takes them.
    A turn's last put is waited for, so it lands before the turn's result
    is ready. A cancel is answered on the turn's next put (every 0.1 s):
    ``ray.cancel`` alone cannot interrupt a worker blocked in a model call."""

    def __init__(self) -> None:
        self._batches: dict[str, list] = {}
        self._cancelled: set[str] = set()

    def put(self, key: str, batch: list) -> bool:
        """Keep ``batch``; True once the turn ``key`` was cancelled."""
        if batch:
            self._batches.setdefault(key, []).extend(batch)
        return key in self._cancelled

    def cancel(self, key: str) -> None:
        self._cancelled.add(key)

    def take(self, key: str) -> list:
        return self._batches.pop(key, [])


@ray.remote(num_cpus=1, max_retries=0)
def remote_turn(spec: TurnSpec, base_bundle: bytes, relay) -> TurnReport:
    """``max_retries=0``: the executor retries a lost worker itself, once,
    elsewhere, and says so."""
    context = ray.get_runtime_context()
    placement = (context.get_node_id(), ray.util.get_node_ip_address())

    def send(batch: list) -> bool:
        return ray.get(relay.put.remote(spec.key, batch))

    try:
        return run_remote_turn(spec, base_bundle, send, placement)
    finally:
        ray.get(relay.put.remote(spec.key, []))
