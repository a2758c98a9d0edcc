"""Which pane each event belongs to, and what it adds there (no Textual).

``PaneRouter`` follows the run's actors to worker panes (a /plan task agent
through its dispatch, a team worker by name, a reviewer through the step it
reviews) and turns their events into ``pane_ops``. ``PaneFeed`` cuts the
streamed text into blocks: one block per stream (actor, call, kind), and a
new one whenever something else was shown in between, so a tool call or a
notice lands between the text before and after it.

A team worker's or reviewer's reply that opens with ``{`` or a fence is its
structured report or verdict: it streams into a ``structured`` block (a
one-line "writing the report" until the card arrives, the raw text on
request) and is released as ordinary text if the reply goes on to call
tools. No JSON reaches the pane as text otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from paicli_tui import events as ev
from paicli_tui.present.event_lines import SLOW_FIRST_TOKEN_S, argument_subject, queued_words, speed_words
from paicli_tui.present.figures import format_elapsed
from paicli_tui.ui.run.text_chunks import plain_line
from paicli_tui.ui.run.pane_ops import (
    CheckOp,
    NoticeOp,
    PaneOp,
    ReleaseOp,
    ReportOp,
    StepOp,
    TextOp,
    ToolDoneOp,
    ToolOp,
    VerdictOp,
)

if TYPE_CHECKING:
    from paicli_tui.ui.run.run_model import FrameUpdate, RunModel
    from paicli_tui.records.run_views import TaskView, Verdict

#: How a structured reply starts: a JSON object or a fenced block.
_STRUCTURED_START = ("{", "`")
#: The person's (or --on-conflict's) decision on a merge conflict, in words.
CONFLICT_CHOICES = {"rerun": "re-run on top of the merged work", "drop": "its changes dropped",
                    "fail": "the task fails", "resolve": "merged with the chosen side of each file"}


@dataclass
class _Stream:
    key: tuple[str, str, str]  # actor, call id, kind
    block: int
    kind: str
    undecided: str = ""  # leading whitespace of a content stream not yet known to be structured


@dataclass
class PaneFeed:
    """Cuts streamed text into blocks per worker pane."""

    next_block: int = 1
    _open: dict[str, _Stream] = field(default_factory=dict)  # worker → its open stream
    #: actor → its last structured block, until that reply is settled.
    _structured: dict[str, int] = field(default_factory=dict)
    #: worker → the end of its latest content or reasoning (the strip shows its last line).
    _recent: dict[str, str] = field(default_factory=dict)

    def text(self, out: list[PaneOp], worker: str, actor: str, call_id: str, kind: str, text: str, *,
             structured_ok: bool) -> None:
        kind = "reasoning" if kind == "reasoning" else "content"
        key = (actor, call_id, kind)
        stream = self._open.get(worker)
        if stream is None or stream.key != key:
            stream = self._open[worker] = _Stream(key, self.next_block, kind)
            self.next_block += 1
            if kind == "content" and structured_ok:
                stream.kind = ""  # decided by the first character that is not a space
        if not stream.kind:
            pending = stream.undecided + text
            if not pending.strip():
                stream.undecided = pending
                return
            stream.undecided, text = "", pending
            if pending.lstrip().startswith(_STRUCTURED_START):
                stream.kind = "verdict" if actor.startswith("reviewer") else "report"
                self._structured[actor] = stream.block
            else:
                stream.kind = "content"
        out.append(TextOp(stream.block, stream.kind, text))
        if stream.kind in ("content", "reasoning"):
            self._recent[worker] = (self._recent.get(worker, "") + text)[-240:]

    def last_line(self, worker: str) -> str:
        """The last non-blank line ``worker`` streamed (content or reasoning)."""
        lines = [plain_line(line) for line in self._recent.get(worker, "").splitlines() if line.strip()]
        return lines[-1] if lines else ""

    def close(self, worker: str) -> None:
        """Something else is shown in ``worker``'s pane: the next text starts a new block."""
        self._open.pop(worker, None)

    def reply_ended(self, out: list[PaneOp], actor: str, *, final: bool) -> None:
        """``actor``'s model call ended; a structured block of a reply that
        called tools was ordinary text."""
        block = self._structured.get(actor)
        if block is not None and not final:
            del self._structured[actor]
            out.append(ReleaseOp(block))

    def take_structured(self, actor: str) -> int:
        """The structured block a report or verdict was read from (-1: none)."""
        return self._structured.pop(actor, -1)


class PaneRouter:
    def __init__(self, model: "RunModel") -> None:
        self.model = model
        self.feed = PaneFeed()
        self._route: dict[str, str] = {}  # agent actor → worker pane

    # -- lookups -------------------------------------------------------------------

    def pane_of(self, actor: str) -> str:
        worker = self._route.get(actor, "")
        if not worker and actor in self.model.workers:
            worker = actor
        return worker

    def _out(self, up: "FrameUpdate", worker: str) -> list[PaneOp]:
        return up.output.setdefault(worker, [])

    def _show(self, up: "FrameUpdate", worker: str, op: PaneOp) -> None:
        self.feed.close(worker)
        self._out(up, worker).append(op)

    def _notice(self, up: "FrameUpdate", worker: str, kind: str, text: str) -> None:
        self._show(up, worker, NoticeOp(kind, text))

    # -- streams -------------------------------------------------------------------

    def stream(self, actor: str, call_id: str, kind: str, text: str, up: "FrameUpdate") -> None:
        worker = self.pane_of(actor)
        if not worker or not text or kind == "tool_call":  # ToolCallStarted shows the whole call
            return
        structured_ok = self.model.kind == "team" and (actor in self.model.workers or actor.startswith("reviewer"))
        self.feed.text(self._out(up, worker), worker, actor, call_id, kind, text, structured_ok=structured_ok)

    def response(self, item: ev.ModelResponse, up: "FrameUpdate") -> None:
        worker = self.pane_of(item.actor)
        if worker:
            self.feed.close(worker)
            self.feed.reply_ended(self._out(up, worker), item.actor, final=not item.tool_calls)
            if item.ttft_s is not None and item.ttft_s >= SLOW_FIRST_TOKEN_S:
                self._notice(up, worker, "retry", speed_words(item.ttft_s, item.tokens_per_s))

    # -- run events ------------------------------------------------------------------

    def dispatched(self, item: ev.TaskDispatched, task: "TaskView | None", up: "FrameUpdate") -> None:
        # /plan: the agent is named after the task; /team: after the worker.
        for actor in (item.task_id, item.worker):
            self._route[actor] = item.worker
        description = task.description if task is not None else ""
        self._show(up, item.worker, StepOp(item.task_id, item.attempt, description))

    def task_ended(self, worker: str, task: "TaskView", up: "FrameUpdate") -> None:
        outcome = task.outcome
        took = task.elapsed(self.model.now())
        parts = [f"■ {task.id} {outcome}"]
        if took is not None:
            parts.append(format_elapsed(took))
        if task.error and outcome not in ("cancelled", "completed"):
            parts.append(task.error)
        self._notice(up, worker, outcome, " · ".join(parts))

    def review_started(self, item: ev.ReviewStarted, up: "FrameUpdate") -> None:
        task = self.model.tasks.get(item.step_id)
        worker = task.worker if task is not None else ""
        if worker in self.model.workers:
            self._route[item.actor] = worker
            self._notice(up, worker, "review", f"⚖ {item.actor} reviews {item.step_id} · attempt {item.attempt}")

    def report(self, item: ev.WorkerReportParsed, up: "FrameUpdate") -> None:
        worker = self.pane_of(item.actor)
        if worker:
            block = self.feed.take_structured(item.actor)
            raw = self.model.last_content(item.actor)
            self._show(up, worker, ReportOp(item.step_id, item.attempt, item.status, item.result, item.reason, raw, block))

    def verdict(self, item: ev.ReviewVerdictGiven, verdict: "Verdict", raw: str, up: "FrameUpdate") -> None:
        worker = self._route.get(item.actor, "")
        if worker:
            up.workers.add(worker)
            block = self.feed.take_structured(item.actor)
            op = VerdictOp(item.actor, item.step_id, item.attempt, item.approved, verdict.summary, item.feedback,
                           verdict.notes, raw, block)
            self._show(up, worker, op)

    def retried(self, worker: str, item: ev.StepRetry, up: "FrameUpdate") -> None:
        if worker in self.model.workers:
            why = "after its check failed" if item.feedback.startswith("check: ") else "with the review's feedback"
            self._notice(up, worker, "retry", f"↻ retry {item.step_id} · attempt {item.attempt}, {why}")

    def other(self, item: Any, up: "FrameUpdate") -> None:
        worker = self.pane_of(getattr(item, "actor", ""))
        if not worker:
            return
        match item:
            case ev.ToolCallStarted():
                self._show(up, worker, ToolOp(item.call_id, item.tool, argument_subject(item.arguments), item.arguments))
            case ev.ToolCallFinished():
                self._show(up, worker, ToolDoneOp(item.call_id, item.ok, item.summary, item.content))
            case ev.ModelError() if item.kind != "cancelled":  # a cancel is said once, by the task's end
                self._notice(up, worker, "error", f"✗ model call failed ({item.kind}): {item.message}")
            case ev.ModelRetry():
                self._notice(up, worker, "warning", f"↻ model retry {item.attempt}: {item.reason}")
            case ev.ModelQueued():
                self._notice(up, worker, "retry", f"⧗ {queued_words(item.slots)}")
            case ev.AgentNote():
                self._notice(up, worker, "warning", item.text)
            case ev.AgentFinished() if item.status not in ("final", "cancelled"):
                reason = f": {item.reason}" if item.reason else ""
                self._notice(up, worker, "warning", f"turn {item.status}{reason}")
            case ev.ApprovalRequested():
                self._notice(up, worker, "warning", f"? waiting for approval: {item.tool}")
            case ev.MergeConflict():
                files = ", ".join(item.files) or "its files"
                self._notice(up, worker, "warning", f"≠ merge conflict in {files} with work merged before it: "
                                                    "waiting for your decision")
            case ev.CheckRan():
                ended = {"timeout": "timed out", "cancelled": "cancelled", "error": "could not start"}.get(
                    item.stopped, f"exit {item.exit_code}")
                self._show(up, worker, CheckOp(item.task_id, item.attempt, item.command, item.passed, ended,
                                               item.duration_s, item.output_tail))
            case ev.ReceiptsSent() if item.flags:
                self._notice(up, worker, "warning", " · ".join(f"⚠ {flag}" for flag in item.flags)
                             + f" · {item.task_id} reported completed")
            case ev.ConflictDecided():
                self._notice(up, worker, "retry", f"≠ conflict settled: {CONFLICT_CHOICES.get(item.choice, item.choice)}")
