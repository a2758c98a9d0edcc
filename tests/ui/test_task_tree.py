"""The DAG tree widget (P-7.2): shape, repeats, glyphs and live fields."""

from __future__ import annotations

from textual.app import App, ComposeResult

from paicli_tui.records.run_views import TaskView
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


def wide_plan() -> list[TaskView]:
    long = "Read every module under src and note what each one exports and imports, with line counts"
    tasks = [TaskView(f"task_{n}", f"{long} ({n})", "FILE_READ") for n in range(1, 12)]
    tasks.append(TaskView("task_12", "Summarise the findings of every reading task", "ANALYSIS",
                          [f"task_{n}" for n in range(1, 12)]))
    return tasks


def dependency_suffix_names_whole_ids(row: str, dependencies: list[str]) -> bool:
    suffix = row.partition("  ← ")[2].removesuffix("  ⚠")
    return suffix in (", ".join(dependencies), f"{dependencies[0]} +{len(dependencies) - 1}", str(len(dependencies)))


async def test_fitted_rows_shorten_the_description_and_never_cut_an_id():
    tree = TaskTree(fit_rows=True)
    async with TreeApp(tree).run_test(size=(60, 30)) as pilot:
        tree.show_tasks(wide_plan(), {"task_12": ["dependencies: unknown id \"x\""]})
        await pilot.pause()
        for task_id in tree.task_ids:
            row = tree.row_text(task_id)
            depth = 0 if task_id != "task_12" else 1
            assert len(row) <= 60 - 2 - depth * tree.guide_depth, row
        first = tree.row_text("task_1")
        assert first.startswith("○ task_1 FILE_READ Read every module") and first.endswith("…")
        summary = tree.row_text("task_12")
        assert summary.startswith("○ task_12 ANALYSIS Summarise")
        assert dependency_suffix_names_whole_ids(summary, [f"task_{n}" for n in range(1, 12)]), summary
        assert summary.endswith("  ⚠")  # the problem's text lives in the review's panel
        # Without fit_rows the label is whole (the run screen's rows are unchanged).
        assert tree.label_text("task_12").endswith('⚠ dependencies: unknown id "x"')


async def test_fitted_rows_follow_a_resize():
    tree = TaskTree(fit_rows=True)
    async with TreeApp(tree).run_test(size=(200, 30)) as pilot:
        tree.show_tasks(wide_plan())
        await pilot.pause()
        assert tree.row_text("task_1") == tree.label_text("task_1")  # room for all of it
        await pilot.resize_terminal(70, 30)
        await pilot.pause()
        assert tree.row_text("task_1").endswith("…") and len(tree.row_text("task_1")) <= 68


def test_dependency_variants_shorten_by_whole_ids():
    from paicli_tui.ui.common.task_tree import dependency_variants

    assert dependency_variants([]) == [""]
    assert dependency_variants(["task_3"]) == ["  ← task_3"]
    assert dependency_variants(["task_1", "task_22"]) == ["  ← task_1, task_22", "  ← task_1 +1", "  ← 2"]
