"""Between the engine's threads and the protocol's event loop.

Engine threads publish events; ``UpdatePump`` (a bus subscriber) only
translates them and hands them to the loop, where one task sends them in
order. The questions an engine thread must wait for (an approval, a plan
review) go through the same queue, so a question always follows the tool
call it is about; the thread then waits on a future, checking its run's
cancel event. Every SDK call happens on the loop thread."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any, Awaitable, Callable

from paicli_tui import events as ev
from paicli_tui.acp.translate import UpdateTranslator

#: How often a waiting engine thread looks at its cancel event.
POLL_S = 0.2

Send = Callable[[Any], Awaitable[None]]


class _Call:
    """A coroutine to start once every update queued before it was sent."""

    def __init__(self, make: Callable[[], Awaitable[Any]]) -> None:
        self.make = make
        self.result: concurrent.futures.Future = concurrent.futures.Future()


class UpdatePump:
    def __init__(self, loop: asyncio.AbstractEventLoop, send: Send, translator: UpdateTranslator) -> None:
        self.loop = loop
        self._send = send
        self._translator = translator
        self._lock = threading.Lock()
        self._queue: asyncio.Queue = asyncio.Queue()
        self._task = loop.create_task(self._drain())
        self._tasks: set[asyncio.Task] = set()
        #: Text chunks the ReAct agent streamed since ``mark`` (the server
        #: sends a run's text itself when nothing was streamed).
        self.message_chunks = 0

    # -- any thread ----------------------------------------------------------------

    def __call__(self, event: ev.Event) -> None:
        """The bus subscriber: never blocks."""
        with self._lock:
            updates = self._translator.updates(event)
            if isinstance(event, ev.ModelDelta) and event.kind == "content" and event.actor == "react":
                self.message_chunks += 1
            for update in updates:
                self._put(update)

    def call(self, make: Callable[[], Awaitable[Any]]) -> concurrent.futures.Future:
        """Start ``make()`` on the loop after what is queued; its result as a future."""
        job = _Call(make)
        with self._lock:
            if not self._put(job):
                job.result.set_exception(ConnectionError("the ACP connection is closed"))
        return job.result

    def post(self, update: Any) -> None:
        """Queue one update from an engine thread."""
        with self._lock:
            self._put(update)

    def _put(self, item: Any) -> bool:
        try:
            self.loop.call_soon_threadsafe(self._queue.put_nowait, item)
            return True
        except RuntimeError:  # the loop closed: the client is gone
            return False

    # -- the loop ------------------------------------------------------------------

    def send_now(self, update: Any) -> None:
        """Queue an update from the loop thread itself."""
        self._queue.put_nowait(update)

    async def flush(self) -> None:
        """Wait until everything queued before now was sent."""
        done = self.loop.create_future()
        self._queue.put_nowait(done)
        await done

    async def close(self) -> None:
        self._task.cancel()
        for task in list(self._tasks):
            task.cancel()

    async def _drain(self) -> None:
        while True:
            item = await self._queue.get()
            if isinstance(item, asyncio.Future):
                if not item.done():
                    item.set_result(None)
            elif isinstance(item, _Call):
                self._start(item)
            else:
                try:
                    await self._send(item)
                except (ConnectionError, OSError):
                    pass  # the client went away; the session is being closed

    def _start(self, job: _Call) -> None:
        async def run() -> None:
            try:
                job.result.set_result(await job.make())
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
                if not job.result.done():
                    job.result.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise

        task = self.loop.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def ask(self, make: Callable[[], Awaitable[Any]], cancel: Callable[[], bool]) -> Any | None:
        """From an engine thread: the answer to a question, or None once
        ``cancel()`` is true or the connection is gone."""
        future = self.call(make)
        while True:
            try:
                return future.result(timeout=POLL_S)
            except concurrent.futures.TimeoutError:
                if cancel() or self.loop.is_closed():
                    future.cancel()
                    return None
            except (concurrent.futures.CancelledError, ConnectionError, OSError):
                return None
            except Exception:  # noqa: BLE001 - a protocol error answers nothing
                return None
