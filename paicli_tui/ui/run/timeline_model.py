"""The run as a Gantt chart, as plain data (no Textual): one lane per
worker, a bar per task attempt from its dispatch to its end (or now, while
it runs), where its review began, whether it was a retry, and the critical
path — the chain of dependencies that decided when the last task ended.
The timeline widget only draws this."""

from __future__ import annotations

from dataclasses import dataclass

from paicli_tui.records.run_views import AttemptView, TaskView

#: Tick steps (seconds) the axis may use; the first that leaves room between labels.
TICK_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600)


@dataclass(frozen=True)
class Bar:
    task_id: str
    attempt: int
    start: float
    end: float
    outcome: str  # running | completed | rejected | failed | blocked | cancelled | conflict
    review_at: float | None
    critical: bool

    @property
    def retry(self) -> bool:
        return self.attempt > 1


@dataclass(frozen=True)
class Timeline:
    origin: float
    span: float  # seconds the chart covers (at least 1)
    lanes: tuple[tuple[str, tuple[Bar, ...]], ...]
    critical: tuple[str, ...]

    def column(self, at: float, width: int) -> int:
        """The cell (0 … width-1) that time ``at`` falls in."""
        share = (at - self.origin) / self.span
        return min(width - 1, max(0, int(share * width)))

    def ticks(self, width: int, spacing: int = 10) -> list[tuple[int, str]]:
        """(cell, label) of the axis ticks, at least ``spacing`` cells apart."""
        step = next((s for s in TICK_STEPS if s / self.span * width >= spacing), TICK_STEPS[-1])
        out, second = [], 0
        while second <= self.span:
            label = f"{second}s" if second < 60 else f"{second // 60}m" if second % 60 == 0 else f"{second // 60}m{second % 60:02d}"
            out.append((self.column(self.origin + second, width), label))
            second += step
        return out


def critical_path(tasks: dict[str, TaskView], now: float) -> list[str]:
    """The dependency chain ending at the task that ends last: from it, back
    through the dependency that ended last each time. Only tasks that ran."""

    def end(task: TaskView) -> float:
        return task.finished if task.finished is not None else now

    ran = {tid: t for tid, t in tasks.items() if t.started is not None}
    if not ran:
        return []
    last = max(ran.values(), key=end)
    path = [last.id]
    seen = {last.id}
    while True:
        deps = [ran[d] for d in ran[path[-1]].dependencies if d in ran and d not in seen]
        if not deps:
            break
        previous = max(deps, key=end)
        path.append(previous.id)
        seen.add(previous.id)
    return path[::-1]


def _outcome(attempt: AttemptView, task: TaskView | None) -> str:
    """A running attempt whose task waits on a merge conflict is drawn as one."""
    if attempt.outcome == "running" and task is not None and task.status == "CONFLICT" \
            and task.attempts and task.attempts[-1] is attempt:
        return "conflict"
    return attempt.outcome


def build_timeline(
    attempts: list[AttemptView], tasks: dict[str, TaskView], workers: list[str], origin: float | None, now: float,
    version: int | None = None,
) -> Timeline:
    """Lanes in ``workers`` order (a worker that ran nothing keeps its lane).
    Attempts of earlier plan versions are drawn but are never critical."""
    critical = critical_path(tasks, now)
    on_path = set(critical)
    start = origin if origin is not None else min((a.started for a in attempts), default=now)
    lanes: dict[str, list[Bar]] = {name: [] for name in workers}
    for attempt in attempts:
        current = version is None or attempt.version == version
        bar = Bar(
            attempt.task_id,
            attempt.number,
            attempt.started,
            attempt.ended if attempt.ended is not None else now,
            _outcome(attempt, tasks.get(attempt.task_id)),
            attempt.review_started,
            current and attempt.task_id in on_path,
        )
        lanes.setdefault(attempt.worker, []).append(bar)
    span = max(1.0, now - start, *(b.end - start for bars in lanes.values() for b in bars))
    return Timeline(start, span, tuple((name, tuple(bars)) for name, bars in lanes.items()), tuple(critical))
