"""Hand editing on the review screen (P-4.3): every edit, live validation,
a cycle refused at run time with the problem next to the task, undo, and
saving / loading a plan file."""

from __future__ import annotations

from textual.widgets import Input, OptionList

from paicli_tui.plan.files import PlanFileError, load_plan_file
from paicli_tui.ui.review.plan_review import PlanReviewScreen
from tests.ui.run_host import HostApp, read_json, screen_text, shown_text, survey_plan


async def open_review(app, pilot, tmp_path=None):
    decisions = []
    screen = PlanReviewScreen(survey_plan(), "Survey the project", on_decision=decisions.append, save_dir=tmp_path)
    await app.push_screen(screen)
    await pilot.pause()
    await pilot.press("ctrl+o")
    return screen, decisions


async def choose(pilot, app, option_id: str) -> None:
    options = app.screen.query_one(OptionList)
    options.highlighted = options.get_option_index(option_id)
    await pilot.press("enter")
    await pilot.pause()


async def type_text(pilot, app, text: str) -> None:
    app.screen.query_one(Input).value = text
    await pilot.press("enter")
    await pilot.pause()


def deps(screen, task_id):
    return screen.state.task(task_id).dependencies


async def test_edit_description_then_run_sends_the_edited_plan():
    app = HostApp()
    async with app.run_test() as pilot:
        screen, decisions = await open_review(app, pilot)
        screen.task_tree.select_task("task_2")
        await pilot.press("e")
        assert app.screen.query_one(Input).value == "List the source files"
        await type_text(pilot, app, "List every file")
        assert screen.task_tree.label_text("task_2").endswith("List every file")
        assert "(edited)" in screen_text(app)
        await pilot.press("enter")
        plan = decisions[-1].plan
        assert decisions[-1].action == "run" and plan.task("task_2").description == "List every file"
        assert plan.goal == "Survey the project"


async def test_typing_in_the_description_editor_extends_the_text():
    """A person pressing e and typing keeps the old words (no select-all)."""
    app = HostApp()
    async with app.run_test() as pilot:
        screen, _ = await open_review(app, pilot)
        screen.task_tree.select_task("task_2")
        await pilot.press("e")
        await pilot.press("space", "n", "o", "w")
        await pilot.press("enter")
        await pilot.pause()
        assert screen.state.task("task_2").description == "List the source files now"


async def test_change_type():
    app = HostApp()
    async with app.run_test() as pilot:
        screen, _ = await open_review(app, pilot)
        screen.task_tree.select_task("task_3")
        await pilot.press("t")
        await choose(pilot, app, "VERIFICATION")
        assert screen.state.task("task_3").type == "VERIFICATION"
        assert "task_3 VERIFICATION" in screen.task_tree.label_text("task_3")


async def test_add_and_remove_a_dependency_with_the_picker():
    app = HostApp()
    async with app.run_test() as pilot:
        screen, _ = await open_review(app, pilot)
        screen.task_tree.select_task("task_4")
        await pilot.press("d")
        await choose(pilot, app, "task_1")
        assert deps(screen, "task_4") == ["task_3", "task_1"]
        await pilot.press("d")
        await choose(pilot, app, "task_3")
        assert deps(screen, "task_4") == ["task_1"]
        assert screen.state.valid


async def test_add_task_after_the_cursor_gets_a_new_id_and_no_other_id_changes():
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, decisions = await open_review(app, pilot)
        screen.task_tree.select_task("task_1")
        await pilot.press("a")
        assert "New task after task_1" in screen_text(app)
        await type_text(pilot, app, "Check the licence")
        described = [t.description for t in screen.state.tasks()]
        assert described[:3] == ["Read the README", "Check the licence", "List the source files"]
        # Ids stay stable while editing: the new task takes the next free id.
        assert screen.state.ids == ["task_1", "task_5", "task_2", "task_3", "task_4"]
        assert deps(screen, "task_3") == ["task_1", "task_2"] and deps(screen, "task_4") == ["task_3"]
        assert screen.task_tree.cursor_task_id == "task_5"
        assert "task_4 COMMAND Run the tests  ← task_3" in screen_text(app)
        # Running renumbers once, in array order; the screen says so first.
        shown = screen_text(app)
        assert "When it runs, tasks are renumbered in order:" in shown
        assert "task_5 → task_2 · task_2 → task_3 · task_3 → task_4 · task_4 → task_5" in shown
        await pilot.press("enter")
        plan = decisions[-1].plan
        assert decisions[-1].renumbered == (
            ("task_5", "task_2"), ("task_2", "task_3"), ("task_3", "task_4"), ("task_4", "task_5"),
        )
        assert plan.ids == ["task_1", "task_2", "task_3", "task_4", "task_5"]
        assert plan.task("task_2").description == "Check the licence"
        assert plan.task("task_4").dependencies == ["task_1", "task_3"]  # "Summarise" still needs README and the list


async def test_a_deleted_tasks_id_is_never_given_to_a_new_task():
    app = HostApp()
    async with app.run_test() as pilot:
        screen, _ = await open_review(app, pilot)
        screen.task_tree.select_task("task_4")
        await pilot.press("x", "y")
        await pilot.pause()
        assert screen.state.ids == ["task_1", "task_2", "task_3"]
        await pilot.press("a")
        await type_text(pilot, app, "Run the tests again")
        assert screen.state.ids == ["task_1", "task_2", "task_3", "task_5"]


async def test_delete_asks_first_and_dependents_lose_the_dependency():
    app = HostApp()
    async with app.run_test() as pilot:
        screen, _ = await open_review(app, pilot)
        screen.task_tree.select_task("task_1")
        await pilot.press("x")
        assert "Delete task_1 “Read the README”?" in screen_text(app)
        assert "task_3 will lose this dependency" in screen_text(app)
        await pilot.press("n")
        assert len(screen.state.ids) == 4
        await pilot.press("x", "y")
        await pilot.pause()
        described = [t.description for t in screen.state.tasks()]
        assert described == ["List the source files", "Summarise the findings", "Run the tests"]
        assert screen.state.ids == ["task_2", "task_3", "task_4"]  # no renumbering
        assert deps(screen, "task_3") == ["task_2"] and screen.state.valid
        assert screen.task_tree.cursor_task_id == "task_2"  # the task that took its place


async def test_move_task_down_and_up_keeps_every_id():
    app = HostApp()
    async with app.run_test() as pilot:
        screen, _ = await open_review(app, pilot)
        screen.task_tree.select_task("task_1")
        await pilot.press("J")
        assert [t.description for t in screen.state.tasks()][:2] == ["List the source files", "Read the README"]
        assert screen.state.ids == ["task_2", "task_1", "task_3", "task_4"]
        assert screen.task_tree.cursor_task_id == "task_1"  # the cursor follows the moved task
        assert deps(screen, "task_3") == ["task_1", "task_2"]
        await pilot.press("K")
        assert screen.state.ids == ["task_1", "task_2", "task_3", "task_4"]
        assert not screen.state.renumbering()


async def test_an_edit_that_makes_a_cycle_is_shown_beside_the_task_and_refused_until_undone():
    app = HostApp()
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        screen, decisions = await open_review(app, pilot)
        screen.task_tree.select_task("task_1")
        await pilot.press("d")
        await choose(pilot, app, "task_4")  # task_4 → task_3 → task_1 → task_4
        assert not screen.state.valid
        label = screen.task_tree.label_text("task_1")
        assert "⚠ dependencies: dependency cycle" in label
        assert '"task_1" → "task_4" → "task_3" → "task_1"' in label
        problems = screen.query_one("#review-problems")
        assert problems.display
        panel = str(problems.render())
        assert panel.startswith("1 problem (the plan cannot run)\n")
        assert '⚠ task_1 dependencies: dependency cycle "task_1" → "task_4" → "task_3" → "task_1"' in panel
        assert "1 problem (the plan cannot run)" in await shown_text(app, pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert decisions == []
        assert str(problems.render()).startswith("Cannot run: fix 1 problem first")
        assert "Cannot run: fix 1 problem first" in await shown_text(app, pilot)
        assert list(app._notifications) == []  # nothing is put over the panel
        await pilot.press("u")
        assert screen.state.valid and deps(screen, "task_1") == []
        assert "⚠" not in screen.task_tree.label_text("task_1")
        shown = await shown_text(app, pilot)
        assert not problems.display and "Cannot run" not in shown  # the stale message went with the problem
        await pilot.press("enter")
        assert [(d.action, d.plan) for d in decisions] == [("run", None)]


async def test_undo_restores_each_earlier_version_in_turn():
    app = HostApp()
    async with app.run_test(notifications=True) as pilot:
        screen, _ = await open_review(app, pilot)
        screen.task_tree.select_task("task_4")
        await pilot.press("K")
        await pilot.press("t")
        await choose(pilot, app, "ANALYSIS")
        await pilot.press("x", "y")
        await pilot.pause()
        assert len(screen.state.ids) == 3
        await pilot.press("u")
        assert screen.state.task("task_4").type == "ANALYSIS"
        await pilot.press("u")
        assert screen.state.task("task_4").type == "COMMAND"
        assert screen.state.ids == ["task_1", "task_2", "task_4", "task_3"]
        await pilot.press("u")
        assert not screen.state.edited and not screen.state.can_undo
        await pilot.press("u")
        assert "Nothing to undo" in await shown_text(app, pilot)
        assert list(app._notifications) == []  # said on the status line, not in a toast


async def test_save_writes_a_plan_file_that_loads_back(tmp_path):
    app = HostApp()
    async with app.run_test(size=(140, 30), notifications=True) as pilot:
        screen, _ = await open_review(app, pilot, tmp_path)
        screen.task_tree.select_task("task_2")
        await pilot.press("e")
        await type_text(pilot, app, "List every file")
        await pilot.press("s")
        path = tmp_path / "task-plan-1.json"
        assert path.exists() and "Plan saved to" in await shown_text(app, pilot)
        data = read_json(path)
        assert data["goal"] == "Survey the project" and data["tasks"][1]["description"] == "List every file"
        loaded = load_plan_file(path)
        assert loaded.goal == "Survey the project"
        assert [t.to_dict() for t in loaded.tasks] == [t.to_dict() for t in screen.state.to_plan().tasks]


def test_a_broken_plan_file_names_the_file_and_the_problem(tmp_path):
    path = tmp_path / "plan.json"
    path.write_text('{"tasks": [{"id": "a", "description": "x", "dependencies": ["b"]}]}', encoding="utf-8")
    try:
        load_plan_file(path)
    except PlanFileError as exc:
        assert str(exc) == f'plan file {path}: task 1 (id "a"): dependencies[0]: unknown id "b"'
    else:
        raise AssertionError("the broken plan loaded")
    team = tmp_path / "team.json"
    team.write_text('{"goal": "g", "steps": [{"id": "x", "description": "do"}]}', encoding="utf-8")
    assert load_plan_file(team).ids == ["step_1"]


async def test_an_amendment_after_hand_edits_sends_the_ids_the_person_saw():
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, decisions = await open_review(app, pilot)
        screen.task_tree.select_task("task_1")
        await pilot.press("a")
        await type_text(pilot, app, "Check the licence")
        await pilot.press("i")
        await type_text(pilot, app, "and the changelog")
        sent = decisions[-1]
        assert sent.action == "amend" and sent.plan.ids == ["task_1", "task_5", "task_2", "task_3", "task_4"]
        assert sent.plan.goal == "Survey the project"


async def test_enter_on_an_invalid_plan_in_the_collapsed_view_opens_the_graph_on_the_problem():
    app = HostApp()
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        screen, decisions = await open_review(app, pilot)
        screen.task_tree.select_task("task_3")
        await pilot.press("d")
        await choose(pilot, app, "task_4")  # task_3 ↔ task_4
        await pilot.press("escape")
        assert not screen.expanded
        assert "4 tasks · this plan cannot run:" in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert decisions == [] and screen.expanded
        assert screen.task_tree.cursor_task_id == "task_3"
        assert str(screen.query_one("#review-problems").render()).startswith("Cannot run: fix 1 problem first")
        assert list(app._notifications) == []


async def test_c_edits_a_tasks_check_shown_under_it_and_the_run_gets_it():
    app = HostApp()
    async with app.run_test(size=(140, 30)) as pilot:
        screen, decisions = await open_review(app, pilot)
        screen.task_tree.select_task("task_2")
        await pilot.pause()
        assert "check:" not in screen_text(app)
        await pilot.press("c")
        assert app.screen.query_one(Input).value == ""
        await type_text(pilot, app, "test -f files.txt")
        await pilot.pause()
        assert "check: test -f files.txt" in screen_text(app)
        await pilot.press("c")
        assert app.screen.query_one(Input).value == "test -f files.txt"
        await type_text(pilot, app, "python -m pytest -q tests/test_files.py")
        await pilot.press("enter")
        plan = decisions[-1].plan
        assert decisions[-1].action == "run"
        assert plan.task("task_2").check == "python -m pytest -q tests/test_files.py"
        assert plan.task("task_1").check == ""


async def test_an_emptied_check_removes_it():
    app = HostApp()
    async with app.run_test(size=(140, 30)) as pilot:
        screen, decisions = await open_review(app, pilot)
        screen.task_tree.select_task("task_1")
        await pilot.press("c")
        await type_text(pilot, app, "true")
        await pilot.press("c")
        await type_text(pilot, app, "")
        assert screen.state.task("task_1").check == ""
        assert "check" not in screen.state.entries[0]
