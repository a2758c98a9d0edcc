"""Retry policy pieces (P-1.3): which failures to retry, how long to wait,
and what an HTTP error reply says."""

from __future__ import annotations

import json
import random
import time
from email.utils import parsedate_to_datetime

RETRYABLE_STATUS = frozenset({408, 409, 429})


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUS or status >= 500


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: a number of seconds
    or an HTTP date. None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


#: No retry follows at once, whatever the server or the settings say: a
#: ``Retry-After: 0`` loop would otherwise hammer a struggling server.
MIN_RETRY_DELAY = 0.01


def backoff_delay(retry: int, base: float, cap: float, retry_after: float | None = None) -> float:
    """Delay before retry number ``retry`` (1-based): ``base * 2**(retry-1)``
    with jitter (between half and all of it, so parallel workers spread
    out), or the server's ``Retry-After`` when that is longer (a zero or
    past value does not skip the backoff); capped at ``cap``, and never
    under MIN_RETRY_DELAY."""
    ceiling = min(base * (2 ** (retry - 1)), cap)
    delay = ceiling * random.uniform(0.5, 1.0)
    if retry_after is not None:
        delay = max(delay, min(retry_after, cap))
    return max(delay, MIN_RETRY_DELAY)


def server_message(body: bytes, limit: int = 200) -> str:
    """The error text from an error reply: ``{"error": {"message": …}}``,
    ``{"error": "…"}``, ``{"message"|"detail": …}``, else the raw text.
    Whitespace is collapsed to keep it on one line."""
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        found = data.get("error", data)
        if isinstance(found, dict):
            found = found.get("message") or found.get("detail") or found.get("msg") or found
        if isinstance(found, str):
            text = found
        elif found is not None and found is not data:
            text = json.dumps(found, ensure_ascii=False)
        elif isinstance(data.get("detail"), str):
            text = data["detail"]
    return " ".join(text.split())[:limit]
