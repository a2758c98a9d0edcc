"""The shape of one ledger line, checked once as it is read (issue 12).

The writer is ours, but a ledger is a file a person (or an attacker) can
edit. Every reader — sessions, verify, report, replay — gets only lines whose
envelope and payload have the types the event classes declare; a line that
does not is skipped with its line number and what is wrong, as a torn line
is. Payload types come from the dataclasses of the events package themselves, so a
new field is checked the day it is added.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import lru_cache
from typing import Any, Callable, Literal, Union

from paicli_tui import events as ev

Check = Callable[[Any], bool]
#: envelope field → (check, what it must be)
ENVELOPE: dict[str, tuple[Check, str]] = {
    "v": (lambda v: _is_int(v), "a number"),
    "session": (lambda v: isinstance(v, str), "a string"),
    "seq": (lambda v: _is_int(v) and v >= 1, "a positive whole number"),
    "ts": (lambda v: _is_number(v), "a number"),
    "mode": (lambda v: isinstance(v, str), "a string"),
    "actor": (lambda v: isinstance(v, str), "a string"),
    "event": (lambda v: isinstance(v, str), "a string"),
    "payload": (lambda v: isinstance(v, dict), "an object"),
}


class BadLine(ValueError):
    """``str()`` says which field is wrong and how, in one line."""


def checked_line(data: Any) -> dict:
    """``data`` when it is a well-formed ledger line, with fields a newer
    writer added kept and fields an older writer lacked filled with their
    defaults; BadLine otherwise."""
    if not isinstance(data, dict):
        raise BadLine("not a JSON object")
    for name, (check, wanted) in ENVELOPE.items():
        if name not in data:
            raise BadLine(f"no {name!r} field")
        if not check(data[name]):
            raise BadLine(f"field {name!r} is not {wanted}")
    spec = payload_specs().get(data["event"])
    if spec is None:
        raise BadLine(f"unknown event {data['event']!r}")
    payload = dict(data["payload"])
    for name, (check, wanted, default) in spec.items():
        if name not in payload:
            if default is dataclasses.MISSING:
                raise BadLine(f"{data['event']} without {name!r}")
            payload[name] = default
        elif not check(payload[name]):
            raise BadLine(f"{data['event']}: field {name!r} is not {wanted}")
    return {**data, "payload": payload}


@lru_cache(maxsize=1)
def payload_specs() -> dict[str, dict[str, tuple[Check, str, Any]]]:
    """Event name → field → (check, what it must be, default or MISSING)."""
    specs = {}
    for cls in _event_classes():
        hints = typing.get_type_hints(cls)
        fields = {}
        for f in dataclasses.fields(cls):
            if f.name in ("actor", "ts"):  # the line's own fields, not the payload's
                continue
            check, wanted = _checker(hints[f.name])
            if f.name == "plan":  # readers walk into it: check what they touch
                check, wanted = _plan_check(check), "a plan object (tasks with string ids and dependencies)"
            default: Any = f.default
            if default is dataclasses.MISSING and f.default_factory is not dataclasses.MISSING:
                default = f.default_factory()
            fields[f.name] = (check, wanted, _jsonable(default))
        specs[cls.name] = fields
    return specs


def _event_classes() -> list[type[ev.Event]]:
    ev.load_all()
    found, frontier = [], [ev.Event]
    while frontier:
        for sub in frontier.pop().__subclasses__():
            frontier.append(sub)
            if sub.__module__.startswith(ev.__name__ + "."):
                found.append(sub)
    return found


def _checker(hint: Any) -> tuple[Check, str]:
    origin = typing.get_origin(hint)
    if hint is Any:
        return (lambda v: True), "anything"
    if origin in (Union, types.UnionType):
        parts = [_checker(arg) for arg in typing.get_args(hint)]
        return (lambda v: any(check(v) for check, _ in parts)), " or ".join(w for _, w in parts)
    if hint is type(None):
        return (lambda v: v is None), "null"
    if origin is Literal:
        allowed = typing.get_args(hint)
        return (lambda v: v in allowed), f"one of {allowed}"
    if hint is bool:
        return (lambda v: isinstance(v, bool)), "true or false"
    if hint is int:
        return _is_int, "a whole number"
    if hint is float:
        return _is_number, "a number"
    if hint is str:
        return (lambda v: isinstance(v, str)), "a string"
    if hint is dict or origin is dict:
        return (lambda v: isinstance(v, dict)), "an object"
    if hint in (tuple, list) or origin in (tuple, list):
        args = [a for a in typing.get_args(hint) if a is not Ellipsis]
        if len(args) == 1:
            item, wanted = _checker(args[0])
            return (lambda v: isinstance(v, list) and all(item(x) for x in v)), f"a list of {wanted}"
        return (lambda v: isinstance(v, list)), "a list"
    return (lambda v: True), "anything"  # a type the ledger does not constrain


def _plan_check(base: Check) -> Check:
    def check(value: Any) -> bool:
        if value is None or not base(value):
            return base(value)
        if not isinstance(value, dict):
            return False
        tasks = value.get("tasks", [])
        return isinstance(tasks, list) and all(
            isinstance(t, dict) and isinstance(t.get("id"), str)
            and isinstance(t.get("dependencies", []), list)
            and all(isinstance(d, str) for d in t.get("dependencies", []))
            for t in tasks
        )

    return check


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    return value
