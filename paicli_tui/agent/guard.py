"""Runaway guard (P-6.7): notice an agent repeating itself."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

NOTE_AFTER = 3  # identical calls or errors in a row before a note
STOP_AFTER = 5  # identical calls in a row before the loop is ended


def call_signature(name: str, arguments: str) -> str:
    """Tool name plus arguments with sorted keys, so key order and spacing
    don't hide a repeat."""
    try:
        canonical = json.dumps(json.loads(arguments or "{}"), sort_keys=True, separators=(",", ":"))
    except (json.JSONDecodeError, TypeError):
        canonical = (arguments or "").strip()
    return f"{name}:{canonical}"


_NUMBERS = re.compile(r"\d+")


def error_family(name: str, error_text: str) -> str:
    """The first line of an error with numbers blanked: "line 12" and
    "line 40" of the same complaint are one family."""
    first = error_text.strip().splitlines()[0] if error_text.strip() else ""
    return f"{name}:{_NUMBERS.sub('#', first)[:160]}"


@dataclass
class GuardVerdict:
    note: str | None = None
    stop: bool = False


class RunawayGuard:
    def __init__(self) -> None:
        self._last_call: str | None = None
        self._call_streak = 0
        self._last_error: str | None = None
        self._error_streak = 0
        self._noted_call = False
        self._noted_error = False

    def observe(self, name: str, arguments: str, ok: bool, content: str) -> GuardVerdict:
        signature = call_signature(name, arguments)
        if signature == self._last_call:
            self._call_streak += 1
        else:
            self._last_call, self._call_streak, self._noted_call = signature, 1, False
        if ok:
            self._last_error, self._error_streak, self._noted_error = None, 0, False
        else:
            family = error_family(name, content)
            if family == self._last_error:
                self._error_streak += 1
            else:
                self._last_error, self._error_streak, self._noted_error = family, 1, False

        if self._call_streak >= STOP_AFTER:
            return GuardVerdict(stop=True)
        if self._call_streak >= NOTE_AFTER and not self._noted_call:
            self._noted_call = True
            return GuardVerdict(
                note=(
                    f"[runaway guard] You have made the same {name} call {self._call_streak} times in a row "
                    "and got the same kind of result. Do not repeat it; try another approach or answer with what you have."
                )
            )
        if self._error_streak >= NOTE_AFTER and not self._noted_error:
            self._noted_error = True
            return GuardVerdict(
                note=(
                    f"[runaway guard] {name} failed the same way {self._error_streak} times in a row. "
                    "Change the approach instead of retrying the same thing."
                )
            )
        return GuardVerdict()
