"""Ledger lines back into the engine's event objects.

The ledger stores ``event`` (the stable name) and ``payload`` (the event's
fields). Rebuilding uses the event classes themselves, so a replayed event is
the same object a live subscriber saw. Fields a newer writer added are
ignored; a line naming an unknown event, or missing a required field, is
skipped with a warning instead of failing the whole replay.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Iterable

from paicli_tui import events as ev
from paicli_tui.records.ledger import LedgerLine


def _subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found.append(sub)
        found.extend(_subclasses(sub))
    return found


@lru_cache(maxsize=1)
def event_classes() -> dict[str, type[ev.Event]]:
    """Stable ledger name → event class, for every event of the events package."""
    ev.load_all()
    return {cls.name: cls for cls in _subclasses(ev.Event) if cls.__module__.startswith(ev.__name__ + ".")}


@lru_cache(maxsize=None)
def _fields(cls: type[ev.Event]) -> tuple[tuple[str, bool, bool], ...]:
    """(name, is a tuple field, is required) for each payload field (all
    but ``actor`` and ``ts``)."""
    out = []
    for f in dataclasses.fields(cls):
        if f.name in ("actor", "ts"):  # the line's own fields, not the payload's
            continue
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        out.append((f.name, str(f.type).startswith("tuple"), required))
    return tuple(out)


def event_from_line(line: LedgerLine, warnings: list[str] | None = None) -> ev.Event | None:
    cls = event_classes().get(line.event)
    if cls is None:
        _warn(warnings, line, f"unknown event {line.event!r} skipped")
        return None
    payload = line.payload if isinstance(line.payload, dict) else {}
    kwargs = {}
    for name, is_tuple, required in _fields(cls):
        if name not in payload:
            if required:
                _warn(warnings, line, f"{line.event} without {name!r} skipped")
                return None
            continue
        value = payload[name]
        kwargs[name] = tuple(value) if is_tuple and isinstance(value, list) else value
    ts = line.data.get("ts")
    return cls(actor=str(line.actor), **kwargs, ts=float(ts) if isinstance(ts, (int, float)) else None)


def rebuild(lines: Iterable[LedgerLine], warnings: list[str] | None = None) -> list[tuple[LedgerLine, ev.Event]]:
    pairs = []
    for line in lines:
        event = event_from_line(line, warnings)
        if event is not None:
            pairs.append((line, event))
    return pairs


def _warn(warnings: list[str] | None, line: LedgerLine, text: str) -> None:
    if warnings is not None:
        warnings.append(f"line {line.number}: {text}")
