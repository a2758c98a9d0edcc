"""Hints for an unknown dependency id (P-3.2 rule 7).

The id is still rejected — ids are compared exactly and never guessed — but
the message points at the id the planner probably meant.
"""

from __future__ import annotations

import difflib
import json
import re


def _quote(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def near_match_hint(unknown: str, written_ids: list[str | None], prefix: str) -> str:
    """`` (…)`` to append to the error, or ``""`` when nothing is close."""
    known = [task_id for task_id in written_ids if task_id is not None]
    for task_id in known:
        if task_id.strip() == unknown.strip():
            return f"; did you mean {_quote(task_id)}? ids are compared exactly, spaces included"
    for task_id in known:
        if task_id.casefold() == unknown.casefold() or task_id.strip().casefold() == unknown.strip().casefold():
            return f"; did you mean {_quote(task_id)}? ids are compared exactly, case included"
    renumbered = re.fullmatch(rf"(?:{re.escape(prefix)}|task|step)_(\d+)", unknown)
    if renumbered:
        position = int(renumbered.group(1))
        if 1 <= position <= len(written_ids) and written_ids[position - 1] is not None:
            return (
                f"; dependencies name the planner's own ids, not renumbered ones"
                f" ({'task' if prefix == 'task' else 'step'} {position} has id {_quote(written_ids[position - 1])})"
            )
        return ""  # "task_9" vs "task_4" is a different number, not a typo
    close = difflib.get_close_matches(unknown, known, n=1, cutoff=0.8)
    if close:
        return f"; did you mean {_quote(close[0])}? (not guessed: fix the id)"
    return ""
