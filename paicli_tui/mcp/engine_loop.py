"""The asyncio event loop every MCP connection of a session lives on.

The SDK is asyncio code and the engine is threads: one daemon thread runs
one loop, and engine threads hand it coroutines (``submit``) and wait on the
concurrent Future they get back. Nothing here knows about Textual.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from typing import Any, Coroutine


class EngineLoop:
    def __init__(self, name: str = "paicli-mcp") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:
            self.loop.close()

    def submit(self, coroutine: Coroutine[Any, Any, Any]) -> Future:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def call_soon(self, callback, *args) -> None:
        self.loop.call_soon_threadsafe(callback, *args)

    @property
    def running(self) -> bool:
        return self._thread.is_alive() and not self.loop.is_closed()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the loop once what is queued ran; tasks still pending are
        dropped (the connections were closed before this is called)."""
        if self.loop.is_closed():
            return
        try:
            self.loop.call_soon_threadsafe(self.loop.stop)
        except RuntimeError:  # closed meanwhile
            return
        self._thread.join(timeout)
