"""Approvals (P-6.5): the request, the decision, the approvers the headless
runner uses, and the session memory for "always".

The UI implements ``Approver`` with a dialog. ``request`` blocks and is
called from engine threads. An approver may carry a ``denial_reason``
attribute: the text a NO returns to the model instead of "denied by the user".
"""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass, field
from enum import Enum
from typing import IO, Protocol

PREVIEW_LINES_SHOWN = 60


@dataclass(frozen=True)
class ApprovalRequest:
    actor: str
    tool: str
    arguments: dict = field(hash=False)
    reason: str
    preview: str = ""
    """Unified diff for write/edit, the full command for execute_command."""


class Decision(str, Enum):
    YES = "yes"
    NO = "no"
    ALWAYS = "always"


class Approver(Protocol):
    def request(self, request: ApprovalRequest) -> Decision: ...


class AutoApprover:
    """``--yes``: everything is approved."""

    def request(self, request: ApprovalRequest) -> Decision:
        return Decision.YES


class DenyApprover:
    """No terminal to ask: everything that needs approval is denied."""

    denial_reason = "denied (no terminal to ask)"

    def request(self, request: ApprovalRequest) -> Decision:
        return Decision.NO


class TerminalApprover:
    """Headless with a terminal: show the request on stderr, read y/n/a from
    the controlling terminal (stdin may be a pipe). One question at a time,
    even when several agents ask at once."""

    _ANSWERS = {"y": Decision.YES, "yes": Decision.YES, "n": Decision.NO, "no": Decision.NO,
                "a": Decision.ALWAYS, "always": Decision.ALWAYS}

    def __init__(self, tty_path: str = "/dev/tty", out: IO[str] | None = None) -> None:
        self.tty_path = tty_path
        self._out = out
        self._lock = threading.Lock()

    def request(self, request: ApprovalRequest) -> Decision:
        out = self._out or sys.stderr
        with self._lock:
            out.write(describe_request(request))
            out.flush()
            try:
                with open(self.tty_path, encoding="utf-8", errors="replace") as tty:
                    for _attempt in range(3):
                        out.write("Allow? [y]es / [n]o / [a]lways for this tool: ")
                        out.flush()
                        line = tty.readline()
                        if not line:
                            break
                        answer = self._ANSWERS.get(line.strip().lower())
                        if answer is not None:
                            return answer
            except OSError:
                pass
            out.write("\n(no answer: denied)\n")
            return Decision.NO


def describe_request(request: ApprovalRequest) -> str:
    lines = [f"\n[{request.actor}] {request.tool} needs approval: {request.reason}"]
    preview = request.preview.splitlines()
    lines += preview[:PREVIEW_LINES_SHOWN]
    if len(preview) > PREVIEW_LINES_SHOWN:
        lines.append(f"… {len(preview) - PREVIEW_LINES_SHOWN} more lines")
    return "\n".join(lines) + "\n"


def headless_approver(yes: bool, tty_path: str = "/dev/tty") -> Approver:
    """``--yes`` → approve all; a usable terminal → ask on it; else deny."""
    if yes:
        return AutoApprover()
    try:
        fd = os.open(tty_path, os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return DenyApprover()
    os.close(fd)
    return TerminalApprover(tty_path)


class ApprovalPolicy:
    """Session memory: after ALWAYS for a tool, later requests for that tool
    are approved without asking. Shared by every agent of the session."""

    def __init__(self) -> None:
        self._always: set[str] = set()
        self._lock = threading.Lock()

    def is_always_allowed(self, tool: str) -> bool:
        with self._lock:
            return tool in self._always

    def remember(self, tool: str) -> None:
        with self._lock:
            self._always.add(tool)

    def forget(self) -> None:
        with self._lock:
            self._always.clear()

    @property
    def always_allowed(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(sorted(self._always))
