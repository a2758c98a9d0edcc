"""What the event pump hands the UI besides engine events: streamed text
joined per stream, and the end of a submitted input. Plain data, so the
screens that read them need nothing else from the bridge."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paicli_tui.session.port import RunOutcome


@dataclass
class TextRun:
    """Several ``ModelDelta`` fragments of one stream, joined."""

    actor: str
    call_id: str
    kind: str
    tool: str = ""
    parts: list[str] = field(default_factory=list)
    #: When its latest fragment was published (``Event.ts``).
    ts: float | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.actor, self.call_id, self.kind)

    @property
    def text(self) -> str:
        return "".join(self.parts)


@dataclass(frozen=True)
class JobEnded:
    """A submitted input finished (posted from the engine thread)."""

    outcome: "RunOutcome | None" = None
    error: BaseException | None = None

    @classmethod
    def from_future(cls, future: Future) -> "JobEnded":
        if future.cancelled():
            return cls(error=RuntimeError("cancelled before it started"))
        error = future.exception()
        return cls(error=error) if error is not None else cls(outcome=future.result())
