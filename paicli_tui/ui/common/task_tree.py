"""The plan's task graph as a tree (P-7.2), for review and for the run.

Roots are the tasks with no dependencies; under each task are the tasks that
depend on it, so the tree reads in execution order. A task with several
parents appears under each: in full under the first, then as a one-line
repeat. Tasks that no root reaches (they sit on a dependency cycle, which the
review screen reports) are shown at the top level so nothing disappears.
Status glyphs are narrow characters coloured by the theme; wide emoji would
break the alignment.

With ``fit_rows`` every row is fitted to the tree's width instead of being
cut at its edge: the description is shortened first, then the problem text
becomes a bare ⚠, then the dependency list is abbreviated, so an id is
always shown whole (never ``← t``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from rich.style import Style
from rich.text import Text
from textual.widgets import Tree
from textual.widgets._tree import TOGGLE_STYLE
from textual.widgets.tree import TreeNode

from paicli_tui.present.figures import format_elapsed, format_tokens
from paicli_tui.records.run_views import TaskView

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


#: A description shorter than this is given room before anything else shrinks.
MIN_DESCRIPTION = 16


def dependency_variants(dependencies: list[str]) -> list[str]:
    """The ``← …`` suffix from whole to shortest; every variant names whole ids."""
    if not dependencies:
        return [""]
    variants = [f"  ← {', '.join(dependencies)}"]
    if len(dependencies) > 1:
        variants += [f"  ← {dependencies[0]} +{len(dependencies) - 1}", f"  ← {len(dependencies)}"]
    return variants


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


def _shorten(text: str, cells: int) -> str:
    """``text`` in at most ``cells`` cells, ending in … when shortened."""
    rich = Text(text)
    if rich.cell_len <= cells:
        return text
    if cells <= 1:
        return "…"[:cells]
    rich.truncate(cells, overflow="ellipsis")
    return rich.plain


class TaskTree(Tree[TaskNodeData]):
    fit_rows = False  # set per instance; Tree.__init__ already measures the root
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
        fit_rows: bool = False,
        id: str | None = None,
    ) -> None:
        super().__init__(Text(label), id=id)
        self.show_root = False
        self.guide_depth = 3
        self.live = live
        self.fit_rows = fit_rows
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

    def select_first(self) -> bool:
        """Put the cursor on the first row (False when the tree is empty)."""
        if not self.root.children:
            return False
        _ = self.last_line
        self.move_cursor(self.root.children[0])
        return True

    def label_text(self, task_id: str) -> str:
        """The plain text of a task's first node (tests read it)."""
        return self.task_label(task_id, False).plain

    def row_text(self, task_id: str) -> str:
        """The plain text of a task's first row as drawn (fitted when
        ``fit_rows``), without the tree's guides."""
        nodes = self._task_nodes.get(task_id)
        if not nodes:
            return ""
        return self.render_label(nodes[0], Style(), Style()).plain.removeprefix(self.ICON_NODE_EXPANDED)

    # -- labels -------------------------------------------------------------------

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"task-tree--{name}", partial=True)

    def task_label(self, task_id: str, repeat: bool, width: int | None = None) -> Text:
        """A task's row; with ``width``, fitted into that many cells."""
        task = self._tasks[task_id]
        status = task.status if task.status in GLYPHS else "PENDING"
        muted = self._style("muted")
        head = Text(no_wrap=True, overflow="ellipsis")
        head.append(GLYPHS[status], self._style(status.lower()))
        head.append(" ")
        head.append(task.id, self._style("id"))
        if self.live and not repeat:
            # Live fields go before the description so a narrow tree still shows them.
            head.append_text(self._live_fields(task))
        kind = f" {task.type}"
        description = f" {task.description}" if task.description else " (no description)"
        problems = "".join(f"  ⚠ {problem}" for problem in self._problems.get(task_id, ()))
        if repeat:
            tails = [["  ↺ repeat, shown above"], ["  ↺ repeat"], ["  ↺"]]
        else:
            marker = "  ⚠" if problems else ""
            tails = [[deps, problems] for deps in dependency_variants(task.dependencies)[:1]]
            tails += [[deps, marker] for deps in dependency_variants(task.dependencies)]
        kind, description, tail = self._fit(head.cell_len, kind, description, tails, width)
        text = head
        text.append(kind, muted)
        text.append(description)
        for part in tail:
            text.append(part, self._style("problem") if part.lstrip().startswith("⚠") else muted)
        return text

    @staticmethod
    def _fit(used: int, kind: str, description: str, tails: list[list[str]], width: int | None):
        """(type, description, tail parts) that fit ``width`` cells after
        ``used``: the first tail (richest first) that leaves the description
        MIN_DESCRIPTION cells, else the shortest tail, then without the type,
        the description shortened with … last."""
        if width is None:
            return kind, description, tails[0]
        def cells(value: str) -> int:
            return Text(value).cell_len

        want = min(cells(description), MIN_DESCRIPTION)
        for tail in tails:
            room = width - used - cells(kind) - sum(cells(part) for part in tail)
            if room >= want:
                return kind, _shorten(description, room), tail
        tail = tails[-1]
        room = width - used - cells(kind) - sum(cells(part) for part in tail)
        if room < min(cells(description), 4):
            kind = ""
            room = width - used - sum(cells(part) for part in tail)
        return kind, _shorten(description, max(0, room)), tail

    def render_label(self, node: TreeNode[TaskNodeData], base_style: Style, style: Style) -> Text:
        width = self._row_width(node) if self.fit_rows else None
        if width is None or node.data is None:
            return super().render_label(node, base_style, style)
        label = self.task_label(node.data.task_id, node.data.repeat, width)
        label.stylize(style)
        if node.allow_expand:
            icon = self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE
            return Text.assemble((icon, base_style + TOGGLE_STYLE), label)
        return label

    def _row_width(self, node: TreeNode[TaskNodeData]) -> int | None:
        """Cells left for ``node``'s label: the tree's width less the guides,
        the expand icon and room for a vertical scrollbar (it may appear
        after the rows were measured)."""
        width = self.scrollable_content_region.width
        if width <= 0:
            return None
        if not self.show_vertical_scrollbar:
            width -= self.styles.scrollbar_size_vertical
        depth, parent = 0, node.parent
        while parent is not None and parent is not self.root:
            depth, parent = depth + 1, parent.parent
        width -= depth * self.guide_depth
        if node.allow_expand:
            width -= len(self.ICON_NODE)
        return max(8, width)

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
