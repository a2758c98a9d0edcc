"""Database calls from the knowledge screens: off the UI thread, and a
broken or newer database file becomes a one-line notice, not a crash."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any, Callable

from paicli_tui.knowledge.memory.database import DatabaseError


async def off_thread(screen, call: Callable[..., Any], *args, **kwargs) -> Any:
    """``call(*args, **kwargs)`` on a thread; None (and a notice) when the
    database cannot be used."""
    try:
        return await asyncio.to_thread(call, *args, **kwargs)
    except (DatabaseError, sqlite3.Error) as exc:
        screen.notify(f"the memory database cannot be used: {exc}", severity="error", markup=False)
        return None
