"""Approvals (P-6.5, P-9.6): the request, the answer, and the approvers the
headless runner uses. What "always" grants lives in ``grants``.

The UI implements ``Approver`` with a dialog. ``request`` blocks and is
called from engine threads; it returns a Decision or, for a reason or an
edit, an ApprovalAnswer. An approver may carry a ``denial_reason``
attribute: the text a NO returns to the model instead of "denied by the user".
"""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass, field
from enum import Enum
from typing import IO, Protocol

from paicli_tui.policy.grants import Grant

PREVIEW_LINES_SHOWN = 60
#: The argument a person may rewrite before a call runs, per tool.
EDITABLE_ARGUMENT = {"execute_command": "command", "write_file": "content", "edit_file": "new_string"}


@dataclass(frozen=True)
class ApprovalRequest:
    actor: str
    tool: str
    arguments: dict = field(hash=False)
    reason: str
    """Why the person is asked, in their words ("a recursive delete of src")."""
    preview: str = ""
    """Unified diff for write/edit, the full command for execute_command."""
    grants: tuple[Grant, ...] = ()
    """What "Always" would grant, narrowest first; empty when the call is
    risky (a grant would never spare that question)."""
    risky: bool = False
    workdir: str = ""
    """Where a command runs (the workspace root)."""
    task: str = ""
    """The task or step the asking agent works on, when it has one."""
    call_id: str = ""
    """The model's id of the call, so a front end can tie the question to
    the tool call it already shows (ACP's ``toolCallId``)."""
    network_choice: bool = False
    """The command would run without the network (the sandbox's default);
    the person may let this one run reach it."""

    @property
    def editable(self) -> str | None:
        """The argument an Edit answer may change, if any."""
        return EDITABLE_ARGUMENT.get(self.tool)


class Decision(str, Enum):
    YES = "yes"
    NO = "no"
    ALWAYS = "always"
    EDIT = "edit"


@dataclass(frozen=True)
class ApprovalAnswer:
    """A decision with what came with it: the reason a NO tells the agent,
    the grant an ALWAYS chose, the text an EDIT runs instead."""

    decision: Decision
    reason: str = ""
    grant: Grant | None = None
    edited: str | None = None
    network: bool = False
    """Run this command with the network (only when the request offered it)."""


def as_answer(value: "Decision | ApprovalAnswer | str") -> ApprovalAnswer:
    if isinstance(value, ApprovalAnswer):
        return value
    return ApprovalAnswer(Decision(value))


class Approver(Protocol):
    def request(self, request: ApprovalRequest) -> "Decision | ApprovalAnswer": ...


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
    """Headless with a terminal: show the request on stderr, read the answer
    from the controlling terminal (stdin may be a pipe). One question at a
    time, even when several agents ask at once. The seed's choices: approve,
    approve all (scoped), reject, reject with a reason, skip, modify."""

    _ANSWERS = {"y": Decision.YES, "yes": Decision.YES, "n": Decision.NO, "no": Decision.NO,
                "a": Decision.ALWAYS, "always": Decision.ALWAYS, "r": "reason", "reason": "reason",
                "s": "skip", "skip": "skip", "e": Decision.EDIT, "edit": Decision.EDIT, "w": "network"}

    def __init__(self, tty_path: str = "/dev/tty", out: IO[str] | None = None) -> None:
        self.tty_path = tty_path
        self._out = out
        self._lock = threading.Lock()

    def request(self, request: ApprovalRequest) -> "Decision | ApprovalAnswer":
        out = self._out or sys.stderr
        with self._lock:
            out.write(describe_request(request))
            out.flush()
            try:
                with open(self.tty_path, encoding="utf-8", errors="replace") as tty:
                    for _attempt in range(3):
                        out.write(self._question(request))
                        out.flush()
                        line = tty.readline()
                        if not line:
                            break
                        answer = self._ANSWERS.get(line.strip().lower())
                        if answer is Decision.ALWAYS and not request.grants:
                            answer = None
                        if answer is Decision.EDIT and not request.editable:
                            answer = None
                        if answer == "network" and not request.network_choice:
                            answer = None
                        if answer is None:
                            continue
                        return self._complete(answer, request, tty, out)
            except OSError:
                pass
            out.write("\n(no answer: denied)\n")
            return Decision.NO

    @staticmethod
    def _question(request: ApprovalRequest) -> str:
        choices = ["[y]es" + (" (no network)" if request.network_choice else "")]
        if request.network_choice:
            choices.append("[w] yes, with the network this once")
        if request.grants:
            choices.append(f"[a]lways: {request.grants[0].describe()}")
        choices += ["[n]o", "[r] no, and tell the agent why", "[s]kip"]
        if request.editable:
            choices.append("[e]dit first")
        return "Allow? " + " / ".join(choices) + ": "

    @staticmethod
    def _complete(answer, request: ApprovalRequest, tty, out) -> "Decision | ApprovalAnswer":
        if answer == "network":
            return ApprovalAnswer(Decision.YES, network=True)
        if answer == "skip":
            return ApprovalAnswer(Decision.NO, "the person skipped this call; go on without it")
        if answer == "reason":
            out.write("Why not? (one line, sent to the agent): ")
            out.flush()
            return ApprovalAnswer(Decision.NO, tty.readline().strip())
        if answer is Decision.ALWAYS:
            return ApprovalAnswer(Decision.ALWAYS, grant=request.grants[0])
        if answer is Decision.EDIT:
            if request.tool == "execute_command":
                out.write("Command to run instead: ")
                out.flush()
                return ApprovalAnswer(Decision.EDIT, edited=tty.readline().rstrip("\n"))
            out.write(f"New {request.editable} (end with a line holding only '.'):\n")
            out.flush()
            lines = []
            for line in iter(tty.readline, ""):
                if line.rstrip("\n") == ".":
                    break
                lines.append(line)
            return ApprovalAnswer(Decision.EDIT, edited="".join(lines))
        return answer


def describe_request(request: ApprovalRequest) -> str:
    who = f"{request.actor} ({request.task})" if request.task else request.actor
    lines = [f"\n[{who}] {request.tool} needs approval: {request.reason}"]
    if request.workdir and request.tool == "execute_command":
        lines.append(f"in {request.workdir}:")
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
