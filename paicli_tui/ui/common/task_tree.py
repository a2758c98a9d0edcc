"""The plan's task graph as a tree (P-7.2), for review and for the run.

Roots are the tasks with no dependencies; under each task are the tasks that
depend on it, so the tree reads in execution order. A task with several
parents appears under each: in full under the first, then as a one-line
repeat. Tasks that no root reaches (they sit on a dependency cycle, which the
review screen reports) are shown at the top level so nothing disappears.
Status glyphs are narrow characters coloured by the theme; wide emoji would
break the alignment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from rich.style import Style
from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from paicli_tui.ui.common.figures import format_elapsed, format_tokens
from paicli_tui.ui.run.run_model import TaskView

GLYPHS = {
    "PENDING": "○",
    "RUNNING": "◐",
    "COMPLETED": "●",
    "FAILED": "✗",
    "SKIPPED": "⊘",
    "BLOCKED": "■",
}


@dataclass(frozen=True)
class TaskNodeData:
    task_id: str
    repeat: bool = False


def tree_layout(tasks: list[TaskView]) -> list[tuple[int, str, bool]]:
    """Depth-first (depth, task id, is_repeat) rows of the tree, ignoring
    dependencies on unknown ids. Pure, so the shape is easy to test."""
    known = {task.id for task in tasks}
    children: dict[str, list[str]] = {task.id: [] for task in tasks}
    for task in tasks:
        for dep in dict.fromkeys(task.dependencies):
            if dep in known and dep != task.id:
                children[dep].append(task.id)
    rows: list[tuple[int, str, bool]] = []
    placed: set[str] = set()

    def visit(task_id: str, depth: int, path: frozenset[str]) -> None:
        repeat = task_id in placed or task_id in path
        rows.append((depth, task_id, repeat))
        if repeat:
            return
        placed.add(task_id)
        for child in children[task_id]:
            visit(child, depth + 1, path | {task_id})

    roots = [task.id for task in tasks if not any(dep in known and dep != task.id for dep in task.dependencies)]
    for root in roots:
        visit(root, 0, frozenset())
    for task in tasks:
        if task.id not in placed:
            visit(task.id, 0, frozenset())
    return rows


class TaskTree(Tree[TaskNodeData]):
    COMPONENT_CLASSES = Tree.COMPONENT_CLASSES | {
        "task-tree--pending",
        "task-tree--running",
        "task-tree--completed",
        "task-tree--failed",
        "task-tree--skipped",
        "task-tree--blocked",
        "task-tree--id",
        "task-tree--muted",
        "task-tree--live",
        "task-tree--problem",
    }
    DEFAULT_CSS = """
    TaskTree {
        & > .task-tree--pending { color: $text-muted; }
        & > .task-tree--running { color: $accent; text-style: bold; }
        & > .task-tree--completed { color: $success; }
        & > .task-tree--failed { color: $error; }
        & > .task-tree--skipped { color: $text-muted; }
        & > .task-tree--blocked { color: $warning; }
        & > .task-tree--id { text-style: bold; }
        & > .task-tree--muted { color: $text-muted; }
        & > .task-tree--live { color: $secondary; }
        & > .task-tree--problem { color: $error; text-style: bold; }
    }
    """

    def __init__(
        self,
        label: str = "Plan",
        *,
        clock: Callable[[], float] | None = None,
        live: bool = False,
        id: str | None = None,
    ) -> None:
        super().__init__(Text(label), id=id)
        self.show_root = False
        self.guide_depth = 3
        self.live = live
        self.clock = clock
        self._tasks: dict[str, TaskView] = {}
        self._problems: dict[str, list[str]] = {}
        self._task_nodes: dict[str, list[TreeNode[TaskNodeData]]] = {}

    # -- public -----------------------------------------------------------------

    @property
    def task_ids(self) -> list[str]:
        return list(self._tasks)

    def show_tasks(self, tasks: Iterable[TaskView], problems: Mapping[str, list[str]] | None = None) -> None:
        """Rebuild the tree; the cursor stays on the same task id when it can."""
        keep = self.cursor_task_id
        tasks = list(tasks)
        self._tasks = {task.id: task for task in tasks}
        self._problems = {k: list(v) for k, v in (problems or {}).items()}
        self._task_nodes = {}
        self.clear()
        parents: list[TreeNode[TaskNodeData]] = [self.root]
        for depth, task_id, repeat in tree_layout(tasks):
            del parents[depth + 1 :]
            node = parents[depth].add(self.task_label(task_id, repeat), TaskNodeData(task_id, repeat), expand=True)
            node.allow_expand = False
            if parents[depth] is not self.root:
                parents[depth].allow_expand = True
            self._task_nodes.setdefault(task_id, []).append(node)
            parents.append(node)
        self.root.expand()
        if keep is not None:
            self.select_task(keep)

    def update_task(self, task: TaskView) -> None:
        """A task's fields changed: relabel every node showing it."""
        self._tasks[task.id] = task
        for node in self._task_nodes.get(task.id, ()):
            node.set_label(self.task_label(task.id, node.data.repeat if node.data else False))

    def refresh_running(self) -> None:
        """Elapsed times move on: relabel the running tasks."""
        for task in self._tasks.values():
            if task.status == "RUNNING":
                self.update_task(task)

    @property
    def cursor_task_id(self) -> str | None:
        node = self.cursor_node
        return node.data.task_id if node is not None and node.data is not None else None

    def select_task(self, task_id: str) -> bool:
        nodes = self._task_nodes.get(task_id)
        if not nodes:
            return False
        _ = self.last_line  # lays out the lines, so a node just added knows its line
        self.move_cursor(nodes[0])
        return True

    def label_text(self, task_id: str) -> str:
        """The plain text of a task's first node (tests read it)."""
        return self.task_label(task_id, False).plain

    # -- labels -------------------------------------------------------------------

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"task-tree--{name}", partial=True)

    def task_label(self, task_id: str, repeat: bool) -> Text:
        task = self._tasks[task_id]
        status = task.status if task.status in GLYPHS else "PENDING"
        muted = self._style("muted")
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(GLYPHS[status], self._style(status.lower()))
        text.append(" ")
        text.append(task.id, self._style("id"))
        if self.live and not repeat:
            # Live fields go before the description so a narrow tree still shows them.
            text.append_text(self._live_fields(task))
        text.append(f" {task.type}", muted)
        text.append(f" {task.description}" if task.description else " (no description)")
        if repeat:
            text.append("  ↺ repeat, shown above", muted)
            return text
        if task.dependencies:
            text.append(f"  ← {', '.join(task.dependencies)}", muted)
        for problem in self._problems.get(task_id, ()):
            text.append(f"  ⚠ {problem}", self._style("problem"))
        return text

    def _live_fields(self, task: TaskView) -> Text:
        parts = []
        if task.worker:
            parts.append(task.worker)
        if task.attempt > 1:
            parts.append(f"attempt {task.attempt}")
        now = self.clock() if self.clock is not None else None
        elapsed = task.elapsed(now) if now is not None else None
        if elapsed is not None:
            parts.append(format_elapsed(elapsed))
        if task.tokens:
            parts.append(format_tokens(task.tokens))
        return Text(" " + " · ".join(parts) + " ·", self._style("live")) if parts else Text()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        # Labels hold resolved colours: rebuild them for the new theme.
        for task_id, nodes in self._task_nodes.items():
            for node in nodes:
                node.set_label(self.task_label(task_id, node.data.repeat if node.data else False))
