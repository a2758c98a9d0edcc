"""Worker reports (P-5.5) and review verdicts (P-5.6), read with the same
strict reader as plans (P-3.2 rules 1–3).

Worker reports are strict and raise: ``status`` must be exactly
``"completed"`` or ``"blocked"`` (case matters); a completed report needs a
non-blank string ``result`` and no reason: an absent, ``null`` or blank
(``""``, whitespace) ``reason`` is no reason, as real models write it, while
any other ``reason`` is an error; a blocked report needs a non-blank string
``reason`` and, when ``result`` is present, it must be a string. Other keys
are ignored, as unknown plan fields are.

Review verdicts never raise: anything but a readable object whose
``approved`` is the boolean ``true`` is a rejection (fail-closed). An
approval keeps its ``issues`` and ``suggestions`` as ``notes``, shown with
the step; they never make it a rejection or a retry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from paicli_tui.plan.strict_json import StrictJsonError, read_json_object

REPORT = "worker report"
VERDICT = "review verdict"
DEFAULT_REJECTION = "Review not passed; please improve the result"
UNREADABLE = "Review verdict could not be read: "


class StructuredReplyError(ValueError):
    """A worker report that breaks P-5.5; the message is one line."""


@dataclass(frozen=True)
class WorkerReport:
    status: Literal["completed", "blocked"]
    result: str | None
    reason: str | None


@dataclass(frozen=True)
class ReviewVerdict:
    approved: bool
    feedback: str
    #: An approval's issues and suggestions, one entry each (empty for a rejection).
    notes: tuple[str, ...] = ()


def parse_worker_report(reply: str) -> WorkerReport:
    if reply is not None and not isinstance(reply, str):
        raise StructuredReplyError(f"{REPORT}: expected text, got {type(reply).__name__}")
    try:
        report = read_json_object(reply, REPORT)
    except StrictJsonError as exc:
        raise StructuredReplyError(_one_line(str(exc))) from None
    status = report.get("status")
    if status == "completed":
        if not _no_reason(report.get("reason")):
            got = _describe(report["reason"])
            raise StructuredReplyError(f'{REPORT}: a "completed" report must not have a "reason" (got {got})')
        return WorkerReport("completed", _required_text(report, "result", status), None)
    if status == "blocked":
        reason = _required_text(report, "reason", status)
        result = report.get("result")
        if "result" in report and not isinstance(result, str):
            raise StructuredReplyError(f'{REPORT}: "result" must be a string, got {_describe(result)}')
        return WorkerReport("blocked", result, reason)
    if "status" not in report:
        raise StructuredReplyError(f'{REPORT}: no "status" (expected "completed" or "blocked")')
    raise StructuredReplyError(f'{REPORT}: "status" must be "completed" or "blocked", got {_describe(status)}')


def _no_reason(value: Any) -> bool:
    """Absent, null and blank are no reason; anything else is one."""
    return value is None or (isinstance(value, str) and not value.strip())


def _required_text(report: dict, key: str, status: str) -> str:
    value = report.get(key)
    if not isinstance(value, str) or not value.strip():
        got = "missing" if key not in report else f"got {_describe(value)}"
        raise StructuredReplyError(f'{REPORT}: a "{status}" report needs a non-empty string "{key}" ({got})')
    return value


def parse_review_verdict(reply: str) -> ReviewVerdict:
    try:
        return _read_verdict(reply)
    except Exception as exc:  # fail-closed: nothing about a verdict may crash a run
        return ReviewVerdict(False, UNREADABLE + _one_line(f"{exc.__class__.__name__}: {exc}"))


def _read_verdict(reply: str) -> ReviewVerdict:
    if reply is not None and not isinstance(reply, str):
        return ReviewVerdict(False, UNREADABLE + f"expected text, got {type(reply).__name__}")
    try:
        verdict = read_json_object(reply, VERDICT)
    except StrictJsonError as exc:
        return ReviewVerdict(False, UNREADABLE + _without_prefix(str(exc)))
    if "approved" not in verdict:
        return ReviewVerdict(False, UNREADABLE + 'no "approved" field')
    approved = verdict["approved"]
    if not isinstance(approved, bool):
        return ReviewVerdict(False, UNREADABLE + f'"approved" must be true or false, got {_describe(approved)}')
    summary = verdict.get("summary")
    summary = summary.strip() if isinstance(summary, str) else ""
    if approved:
        notes = [line[2:] for key in ("issues", "suggestions") for line in _item_lines(verdict.get(key))]
        return ReviewVerdict(True, summary, tuple(notes))
    for key in ("issues", "suggestions"):
        lines = _item_lines(verdict.get(key))
        if lines:
            return ReviewVerdict(False, "\n".join(lines))
    return ReviewVerdict(False, summary or DEFAULT_REJECTION)


def _item_lines(items: Any) -> list[str]:
    """``- item`` per entry; non-strings as compact JSON. Blank strings are
    dropped, so ``["", " "]`` counts as empty and the next source is used."""
    if not isinstance(items, list):
        return []
    lines = []
    for item in items:
        text = item.strip() if isinstance(item, str) else _compact(item)
        if text:
            lines.append(f"- {text}")
    return lines


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _describe(value: Any) -> str:
    """A short rendering of a wrong value for a one-line message."""
    text = _compact(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _without_prefix(message: str) -> str:
    """The reader's reason without its ``review verdict:`` and ``(root):``
    prefixes: the feedback already says what could not be read."""
    if message.startswith(f"{VERDICT} "):  # "… is empty", "… starts with a BOM"
        message = "the reply " + message[len(VERDICT) + 1 :]
    for prefix in (f"{VERDICT}:", "(root):"):
        if message.startswith(prefix):
            message = message[len(prefix) :].lstrip()
    return _one_line(message)


def _one_line(text: str) -> str:
    return " ".join(text.split())
