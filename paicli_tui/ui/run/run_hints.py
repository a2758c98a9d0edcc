"""The run screen's hint line: the keys that work now, most useful first,
as many as fit the width (no Textual)."""

from __future__ import annotations

_SEPARATOR = " · "

_RUNNING = ["[Esc] cancel run", "[Enter] details", "[g] timeline", "[z] zoom", "[c] cancel task",
            "[t] thinking", "[o] tools", "[r] raw", "[h] tasks"]
#: A replay playing: nothing to cancel; Esc goes back to the transcript.
_REPLAYING = ["[Esc] back", "[Enter] details", "[g] timeline", "[z] zoom", "[t] thinking", "[o] tools", "[r] raw",
              "[h] tasks"]
_FINISHED = ["[Esc/q] back", "[Enter] details", "[g] timeline", "[s] summary", "[z] zoom",
             "[t] thinking", "[o] tools", "[r] raw", "[h] tasks"]


def hints_for(state: str, width: int, *, focus: bool = False) -> str:
    """``state`` is running | replaying | cancelling | finished; ``focus``:
    the focus layout, where ``[`` / ``]`` pick the worker shown large."""
    if state == "cancelling":
        return "Cancelling… running tasks are being interrupted"
    keys = list({"finished": _FINISHED, "replaying": _REPLAYING}.get(state, _RUNNING))
    keys.insert(2, "[ and ] worker" if focus else "[Tab] pane")
    shown: list[str] = []
    room = max(10, width - 2)
    for key in keys:
        if len(_SEPARATOR.join([*shown, key])) > room:
            break
        shown.append(key)
    return _SEPARATOR.join(shown)
