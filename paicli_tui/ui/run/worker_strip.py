"""The workers without a pane on screen, one live line each (focus layout):
``▸ worker-2 · step_2 running · 3.2s · the last line it wrote``. A click on
a row, or ``[`` / ``]``, makes that worker the one shown large."""

from __future__ import annotations

from textual import events
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from paicli_tui.present.figures import format_elapsed
from paicli_tui.ui.run.run_model import RunModel


class WorkerStrip(Static):
    DEFAULT_CSS = """
    WorkerStrip {
        height: auto;
        background: $panel;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        padding: 0 1;
    }
    """

    class WorkerChosen(Message):
        def __init__(self, worker: str) -> None:
            super().__init__()
            self.worker = worker

    def __init__(self, model: RunModel, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model = model
        self.names: tuple[str, ...] = ()

    def show(self, workers: tuple[str, ...]) -> None:
        self.names = workers
        self.display = bool(workers)
        self.refresh_rows()

    def row(self, worker: str) -> Content:
        view = self.model.workers.get(worker)
        task = self.model.tasks.get(view.step) if view is not None and view.step else None
        state = "idle"
        if task is not None:
            state = f"{task.id} {'in review' if view.reviewing else task.outcome}"
            took = task.elapsed(self.model.now())
            if took is not None:
                state += f" · {format_elapsed(took)}"
        line = self.model.router.feed.last_line(worker)
        busy = task is not None and task.status == "RUNNING"
        return Content.assemble(
            ("▸ ", "$text-muted"),
            (worker, "bold $accent" if busy else "bold"),
            (f" · {state}", "$text" if busy else ""),
            (f" · {line}" if line else "", ""),
        )

    def refresh_rows(self) -> None:
        if self.names:
            self.update(Content("\n").join(self.row(worker) for worker in self.names))

    def on_click(self, event: events.Click) -> None:
        if 0 <= event.y < len(self.names):
            self.post_message(self.WorkerChosen(self.names[event.y]))
