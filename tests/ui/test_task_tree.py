"""The DAG tree widget (P-7.2): shape, repeats, glyphs and live fields."""

from __future__ import annotations

from textual.app import App, ComposeResult

from paicli_tui.ui.run.run_model import TaskView
from paicli_tui.ui.common.task_tree import GLYPHS, TaskTree, tree_layout


def diamond() -> list[TaskView]:
    return [
        TaskView("task_1", "Read", "FILE_READ"),
        TaskView("task_2", "List", "FILE_READ"),
        TaskView("task_3", "Summarise", "ANALYSIS", ["task_1", "task_2"]),
        TaskView("task_4", "Test", "COMMAND", ["task_3"]),
    ]


def test_a_task_with_two_parents_is_under_each_and_the_second_is_a_repeat():
    assert tree_layout(diamond()) == [
        (0, "task_1", False),
        (1, "task_3", False),
        (2, "task_4", False),
        (0, "task_2", False),
        (1, "task_3", True),
    ]


def test_cycles_and_unknown_dependencies_never_lose_a_task_or_loop():
    tasks = [
        TaskView("task_1", "A", dependencies=["task_2"]),
        TaskView("task_2", "B", dependencies=["task_1"]),
        TaskView("task_3", "C", dependencies=["nope"]),
    ]
    rows = tree_layout(tasks)
    assert {task_id for _, task_id, _ in rows} == {"task_1", "task_2", "task_3"}
    assert rows[0] == (0, "task_3", False)  # an unknown dependency makes no parent
    assert rows[1:] == [(0, "task_1", False), (1, "task_2", False), (2, "task_1", True)]  # closes on a repeat


class TreeApp(App[None]):
    def __init__(self, tree: TaskTree) -> None:
        super().__init__()
        self.task_tree = tree

    def compose(self) -> ComposeResult:
        yield self.task_tree


async def test_labels_show_glyph_id_type_description_dependencies_and_problems():
    tree = TaskTree(id="t")
    async with TreeApp(tree).run_test(size=(100, 12)) as pilot:
        tree.show_tasks(diamond(), {"task_4": ["dependencies[0]: unknown id \"x\""]})
        await pilot.pause()
        assert tree.label_text("task_3") == f"{GLYPHS['PENDING']} task_3 ANALYSIS Summarise  ← task_1, task_2"
        assert "⚠ dependencies[0]: unknown id" in tree.label_text("task_4")
        repeat = [n for n in tree._task_nodes["task_3"] if n.data.repeat]
        assert len(repeat) == 1 and "↺ repeat" in str(repeat[0].label)
        tree.select_task("task_4")
        assert tree.cursor_task_id == "task_4"
        tree.show_tasks(diamond())  # a rebuild keeps the cursor on the same task
        assert tree.cursor_task_id == "task_4"


async def test_live_fields_follow_the_task_and_the_injected_clock():
    now = [50.0]
    tree = TaskTree(live=True, clock=lambda: now[0])
    async with TreeApp(tree).run_test(size=(120, 12)) as pilot:
        tasks = diamond()
        tree.show_tasks(tasks)
        running = TaskView(
            "task_1", "Read", "FILE_READ", status="RUNNING", worker="worker-2", attempt=2, started=20.0, tokens=2500
        )
        tree.update_task(running)
        await pilot.pause()
        label = tree.label_text("task_1")
        assert label == f"{GLYPHS['RUNNING']} task_1 worker-2 · attempt 2 · 30s · 2.5k tok · FILE_READ Read"
        now[0] = 80.0
        tree.refresh_running()
        assert "1m00s" in tree.label_text("task_1")
        for status, glyph in GLYPHS.items():
            tree.update_task(TaskView("task_2", "List", status=status))
            assert tree.label_text("task_2").startswith(glyph)
