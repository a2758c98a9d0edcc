"""Every key of the review screen, pressed (P-4.2, P-4.3, issue 14 item 6):
each binding's key has a Pilot test here, an edit key never acts on a row
the person cannot see, the hints name only keys that work, and the screen
asks before Esc throws hand edits away."""

from __future__ import annotations

import re

import pytest
from textual.widgets import Input, OptionList

from paicli_tui.ui.common.dialogs import Confirm, ModalDialog
from paicli_tui.ui.review.plan_edit_dialogs import ChoicePicker, TextPrompt
from paicli_tui.ui.review.plan_review import PlanReviewScreen
from paicli_tui.ui.review.review_text import hint_pairs
from tests.ui.review_host import ReviewHost as HostApp
from tests.ui.run_host import screen_text, survey_plan


async def open_review(pilot, *, expanded: bool = False, prefix: str = "task", save_dir=None):
    decisions: list = []
    screen = PlanReviewScreen(survey_plan(prefix), "Survey the project", on_decision=decisions.append, save_dir=save_dir)
    await pilot.app.push_screen(screen)
    await pilot.pause()
    if expanded:
        await pilot.press("ctrl+o")
    return screen, decisions


def binding_keys() -> set[str]:
    return {key.strip() for binding in PlanReviewScreen.BINDINGS for key in binding.key.split(",")}


def status(screen) -> str:
    widget = screen.query_one("#review-status")
    return str(widget.render()) if widget.display else ""


def order(screen) -> list[str]:
    return screen.state.ids


# -- the collapsed view: edit keys open the graph on a visible selection --------------

#: Each edit key, and the key the "press it again" line names.
EDIT_KEYS = {
    "e": "e", "t": "t", "d": "d", "c": "c", "a": "a", "x": "x", "delete": "x",
    "K": "K", "shift+up": "K", "J": "J", "shift+down": "J",
}


@pytest.mark.parametrize("key", sorted(EDIT_KEYS))
async def test_an_edit_key_in_the_collapsed_view_opens_the_graph_on_the_first_task_and_edits_nothing(key):
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, decisions = await open_review(pilot)
        before = screen.state.plan_dict
        await pilot.press(key)
        await pilot.pause()
        assert app.screen is screen, "no dialog for a task the person could not see"
        assert screen.expanded and screen.query_one("#review-body").display
        tree = screen.task_tree
        assert tree.cursor_line == 0 and tree.cursor_task_id == "task_1"
        assert screen.state.plan_dict is before and not screen.state.edited and decisions == []
        assert status(screen).startswith(f"The cursor is on task_1: press {EDIT_KEYS[key]} again to ")


async def test_the_graph_opens_with_the_first_task_highlighted():
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, _ = await open_review(pilot, expanded=True)
        tree = screen.task_tree
        assert app.focused is tree and tree.cursor_line == 0 and tree.cursor_task_id == "task_1"
        # The details beside the tree follow the highlight.
        assert str(screen.query_one("#review-details").render()).startswith("task_1 FILE_READ\nRead the README")
        await pilot.press("down")
        assert tree.cursor_task_id == "task_3"
        assert "Summarise the findings" in str(screen.query_one("#review-details").render())


# -- the expanded view: each key acts on the highlighted task ---------------------------

DIALOG_TITLES = {
    "e": (TextPrompt, "Description of task_2"),
    "t": (ChoicePicker, "Type of task_2"),
    "d": (ChoicePicker, "task_2 needs (☑) …"),
    "c": (TextPrompt, "Check of task_2"),
    "a": (TextPrompt, "New task after task_2"),
    "x": (Confirm, "Delete task_2 “List the source files”?"),
    "delete": (Confirm, "Delete task_2 “List the source files”?"),
}


@pytest.mark.parametrize("key", sorted(DIALOG_TITLES))
async def test_an_edit_key_in_the_graph_opens_its_dialog_for_the_highlighted_task(key):
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, _ = await open_review(pilot, expanded=True)
        screen.task_tree.select_task("task_2")
        await pilot.press(key)
        await pilot.pause()
        kind, title = DIALOG_TITLES[key]
        assert isinstance(app.screen, kind)
        assert title in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and not screen.state.edited


@pytest.mark.parametrize(
    "key, expected",
    [
        ("K", ["task_2", "task_1", "task_3", "task_4"]),
        ("shift+up", ["task_2", "task_1", "task_3", "task_4"]),
        ("J", ["task_1", "task_3", "task_2", "task_4"]),
        ("shift+down", ["task_1", "task_3", "task_2", "task_4"]),
    ],
)
async def test_move_keys_move_the_highlighted_task_and_keep_every_id(key, expected):
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, _ = await open_review(pilot, expanded=True)
        screen.task_tree.select_task("task_2")
        await pilot.press(key)
        assert order(screen) == expected
        assert screen.task_tree.cursor_task_id == "task_2"
        assert "task_3 ANALYSIS Summarise the findings  ← task_1, task_2" in screen_text(app)


@pytest.mark.parametrize("key", ["u", "ctrl+z"])
async def test_undo_keys_restore_the_previous_version(key):
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, _ = await open_review(pilot, expanded=True)
        screen.task_tree.select_task("task_2")
        await pilot.press("J")
        assert "u undo" in screen_text(app)  # offered once there is something to undo
        await pilot.press(key)
        assert order(screen) == ["task_1", "task_2", "task_3", "task_4"] and not screen.state.edited
        assert screen.task_tree.cursor_task_id == "task_2"
        await pilot.press(key)
        assert status(screen) == "Nothing to undo"


async def test_s_saves_and_says_where(tmp_path):
    app = HostApp()
    async with app.run_test(size=(160, 36)) as pilot:
        screen, _ = await open_review(pilot, save_dir=tmp_path)
        await pilot.press("s")
        assert (tmp_path / "task-plan-1.json").exists()
        assert status(screen) == f"Plan saved to {tmp_path / 'task-plan-1.json'}"


@pytest.mark.parametrize("key", ["i", "I"])
@pytest.mark.parametrize("expanded", [False, True])
async def test_i_and_shift_i_open_the_amendment_prompt_in_either_view(key, expanded):
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, decisions = await open_review(pilot, expanded=expanded)
        await pilot.press(key)
        await pilot.pause()
        assert isinstance(app.screen, TextPrompt)
        assert "Amend the plan: what should change?" in screen_text(app)
        app.screen.query_one(Input).value = "also check the licence"
        await pilot.press("enter")
        await pilot.pause()
        assert [(d.action, d.amendment) for d in decisions] == [("amend", "also check the licence")]


@pytest.mark.parametrize("key", ["ctrl+o", "v"])
async def test_graph_keys_toggle_and_escape_collapses_first(key):
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, decisions = await open_review(pilot)
        await pilot.press(key)
        assert screen.expanded
        await pilot.press("escape")
        assert not screen.expanded and decisions == []
        await pilot.press(key, key)
        assert not screen.expanded


async def test_enter_runs_and_escape_without_edits_cancels_at_once():
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        _, decisions = await open_review(pilot)
        await pilot.press("escape")
        assert [d.action for d in decisions] == ["cancel"]
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        _, decisions = await open_review(pilot, expanded=True)
        await pilot.press("enter")
        assert [(d.action, d.plan) for d in decisions] == [("run", None)]


#: The tests above that press each key (a binding added without a test fails here).
PRESSED = set(EDIT_KEYS) | set(DIALOG_TITLES) | {"u", "ctrl+z", "s", "i", "I", "ctrl+o", "v", "enter", "escape"}


def test_every_key_of_the_review_screen_is_pressed_by_a_test():
    assert binding_keys() == PRESSED


# -- Esc on hand edits ------------------------------------------------------------------


async def edit_once(pilot, screen) -> None:
    screen.task_tree.select_task("task_2")
    await pilot.press("J")
    await pilot.press("escape")  # collapse
    assert not screen.expanded


async def test_escape_with_hand_edits_asks_before_discarding_them():
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, decisions = await open_review(pilot, expanded=True)
        await edit_once(pilot, screen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, Confirm) and decisions == []
        assert "Discard your hand edits and cancel the plan?" in screen_text(app)
        await pilot.press("enter")  # Enter runs plans; here it must not mean yes
        assert isinstance(app.screen, Confirm) and decisions == []
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen and screen.state.edited and decisions == []
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("escape")  # Esc in the prompt keeps the edits too
        await pilot.pause()
        assert app.screen is screen and decisions == []
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("y")
        assert [d.action for d in decisions] == ["cancel"]


async def test_escape_after_edits_that_undid_each_other_cancels_without_asking():
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, decisions = await open_review(pilot, expanded=True)
        screen.task_tree.select_task("task_2")
        await pilot.press("J", "K")
        assert screen.state.can_undo and not screen.state.edited
        assert "(edited)" not in screen_text(app)
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert [d.action for d in decisions] == ["cancel"]


async def test_moving_the_last_task_down_changes_nothing_and_says_so():
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, _ = await open_review(pilot, expanded=True)
        screen.task_tree.select_task("task_4")
        await pilot.press("J")
        assert status(screen) == "task_4 is already last" and not screen.state.can_undo
        screen.task_tree.select_task("task_1")
        await pilot.press("K")
        assert status(screen) == "task_1 is already first" and not screen.state.can_undo


async def test_escape_after_saving_the_edits_cancels_without_asking(tmp_path):
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, decisions = await open_review(pilot, expanded=True, save_dir=tmp_path)
        await edit_once(pilot, screen)
        await pilot.press("s", "escape")
        await pilot.pause()
        assert [d.action for d in decisions] == ["cancel"]


# -- hints -------------------------------------------------------------------------------

KEY_NAMES = {"Enter": "enter", "Esc": "escape", "Ctrl+O": "ctrl+o"}


@pytest.mark.parametrize("expanded", [False, True])
@pytest.mark.parametrize("can_undo", [False, True])
def test_every_hinted_key_is_bound(expanded, can_undo):
    for keys, _ in hint_pairs(expanded=expanded, can_undo=can_undo, noun="task"):
        for key in keys.split("/"):
            assert KEY_NAMES.get(key, key) in binding_keys(), f"the hint shows {key!r} but nothing binds it"


@pytest.mark.parametrize("size", [(80, 24), (120, 36), (200, 50)])
async def test_hints_render_whole_and_never_part_a_key_from_what_it_does(size):
    app = HostApp()
    async with app.run_test(size=size) as pilot:
        screen, _ = await open_review(pilot, expanded=True)
        hints = screen.query_one("#review-hints")
        lines = [strip.text.strip() for strip in hints.render_lines(hints.region.reset_offset)]
        drawn = " · ".join(line for line in lines if line)
        for key, what in hint_pairs(expanded=True, can_undo=False, noun="task"):
            assert f"{key} {what}" in drawn
        assert "[" not in drawn and all(len(line) <= size[0] for line in lines)
        # Keys are drawn bold, what they do is not.
        strip = hints.render_lines(hints.region.reset_offset)[0]
        styles = {segment.text.strip(): segment.style for segment in strip if segment.text.strip()}
        assert styles["Enter"].bold and not styles["run"].bold


# -- vocabulary ----------------------------------------------------------------------------


async def test_a_team_review_speaks_of_steps_only():
    app = HostApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen, _ = await open_review(pilot, prefix="step")
        assert "4 steps in 3 parallel rounds" in screen_text(app)
        await pilot.press("a")
        assert status(screen).endswith("press a again to add a step after it (↑/↓ choose another step)")
        await pilot.press("a")
        await pilot.pause()
        assert "New step after step_1" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        screen.task_tree.select_task("step_1")
        await pilot.press("d")
        options = app.screen.query_one(OptionList)
        options.highlighted = options.get_option_index("step_4")
        await pilot.press("enter")
        await pilot.pause()
        panel = str(screen.query_one("#review-problems").render())
        assert "step_1 dependencies: dependency cycle" in panel
        shown = screen_text(app)
        assert "add step" in shown
        words = set(re.findall(r"\btasks?\b", shown + panel + status(screen), flags=re.IGNORECASE))
        assert words == set(), f"a team review said {words}"


# -- dialogs over the graph --------------------------------------------------------------


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_a_dialog_keeps_the_graph_visible_behind_it(size):
    app = HostApp()
    async with app.run_test(size=size) as pilot:
        screen, _ = await open_review(pilot, expanded=True)
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ModalDialog)
        assert dialog.styles.background.a < 1, "the dialog's screen must let the graph show through"
        shown = screen_text(app)
        assert "Description of task_1" in shown
        assert "○ task_1 FILE_READ Read the README" in shown and "Review the plan" in shown


# -- rows at 80 columns ---------------------------------------------------------------------


def long_plan():
    from tests.ui.run_host import make_plan

    reads = [
        {"id": f"r{n}", "description": f"Read module {n} and note every function it exports, with its callers",
         "type": "FILE_READ"}
        for n in range(1, 5)
    ]
    summary = {"id": "s", "description": "Summarise what the modules do and how they depend on each other",
               "dependencies": [f"r{n}" for n in range(1, 5)]}
    return make_plan([*reads, summary])


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_rows_fit_the_width_and_never_cut_an_id(size):
    app = HostApp()
    async with app.run_test(size=size) as pilot:
        decisions: list = []
        screen = PlanReviewScreen(long_plan(), "Map the modules", on_decision=decisions.append)
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("ctrl+o")
        await pilot.pause()
        shown = screen_text(app)
        tree = screen.task_tree
        for task_id in tree.task_ids:
            row = tree.row_text(task_id)
            assert row in shown, f"{task_id}'s row is cut at the edge: {row!r}"
        summary = tree.row_text("task_5")
        deps = ["task_1", "task_2", "task_3", "task_4"]
        assert summary.partition("  ← ")[2] in (", ".join(deps), "task_1 +3", "4"), summary
        for line in shown.splitlines():
            drawn = line.rstrip(" │")
            assert not re.search(r"← (\S+, )*t(a(s(k(_)?)?)?)?$", drawn), f"an id cut at the edge: {line!r}"
        assert "…" in tree.row_text("task_1")  # the description gave way, not the ids
